//! A GGUF file's own first attention layer: llama.cpp's tensor names and metadata read as the
//! Hugging Face names and `config.json` settings that [`crate::core::analysis::layer0`] asks for.
//!
//! This file is the one home of both tables: which GGUF tensor each Hugging Face name is
//! ([`ROTARY_NAMES`], [`BERT_NAMES`], [`GPT2_NAMES`]), and which metadata key each setting comes from
//! ([`settings`]). What llama.cpp's converter changed on the way (interleaved query and key
//! rows, Gemma's norm weights with their 1 added) is said per architecture in
//! [`ARCHITECTURES`], and the layer undoes it in its arithmetic rather than by copying weights.

use anyhow::{Result, anyhow, bail};
use serde_json::{Map, Value};

use super::{GgufFile, MetadataValue};
use crate::core::analysis::layer0::rotary::ROPE_FREQUENCY_DIVISORS;
use crate::core::analysis::layer0::source::{Conversion, Settings, TensorShape, TensorSource};
use crate::core::analysis::layer0::{Layer0, Unavailable, load};
use crate::core::tables::table::Table;

/// A family's Hugging Face name for each layer-0 tensor, and llama.cpp's.
type Names = &'static [(&'static str, &'static str)];

/// Llama-style models' names.
const ROTARY_NAMES: Names = &[
    ("model.embed_tokens.weight", "token_embd.weight"),
    (
        "model.layers.0.input_layernorm.weight",
        "blk.0.attn_norm.weight",
    ),
    // StableLM's LayerNorm.
    (
        "model.layers.0.input_layernorm.bias",
        "blk.0.attn_norm.bias",
    ),
    (
        "model.layers.0.self_attn.q_proj.weight",
        "blk.0.attn_q.weight",
    ),
    ("model.layers.0.self_attn.q_proj.bias", "blk.0.attn_q.bias"),
    (
        "model.layers.0.self_attn.k_proj.weight",
        "blk.0.attn_k.weight",
    ),
    ("model.layers.0.self_attn.k_proj.bias", "blk.0.attn_k.bias"),
    (
        "model.layers.0.self_attn.v_proj.weight",
        "blk.0.attn_v.weight",
    ),
    ("model.layers.0.self_attn.v_proj.bias", "blk.0.attn_v.bias"),
    (
        "model.layers.0.self_attn.q_norm.weight",
        "blk.0.attn_q_norm.weight",
    ),
    (
        "model.layers.0.self_attn.k_norm.weight",
        "blk.0.attn_k_norm.weight",
    ),
    // Llama 3's frequency scaling, which llama.cpp stores as a tensor of divisors.
    (ROPE_FREQUENCY_DIVISORS, "rope_freqs.weight"),
];

/// GPT-2's names (llama.cpp's `GPT2Model`).
const GPT2_NAMES: Names = &[
    ("wte.weight", "token_embd.weight"),
    ("wpe.weight", "position_embd.weight"),
    ("h.0.ln_1.weight", "blk.0.attn_norm.weight"),
    ("h.0.ln_1.bias", "blk.0.attn_norm.bias"),
    ("h.0.attn.c_attn.weight", "blk.0.attn_qkv.weight"),
    ("h.0.attn.c_attn.bias", "blk.0.attn_qkv.bias"),
];

/// BERT's names (llama.cpp's `BertModel`; `RoBERTa`'s position table is cut to start at row
/// 0, so it reads as BERT).
const BERT_NAMES: Names = &[
    ("embeddings.word_embeddings.weight", "token_embd.weight"),
    (
        "embeddings.position_embeddings.weight",
        "position_embd.weight",
    ),
    (
        "embeddings.token_type_embeddings.weight",
        "token_types.weight",
    ),
    ("embeddings.LayerNorm.weight", "token_embd_norm.weight"),
    ("embeddings.LayerNorm.bias", "token_embd_norm.bias"),
    (
        "encoder.layer.0.attention.self.query.weight",
        "blk.0.attn_q.weight",
    ),
    (
        "encoder.layer.0.attention.self.query.bias",
        "blk.0.attn_q.bias",
    ),
    (
        "encoder.layer.0.attention.self.key.weight",
        "blk.0.attn_k.weight",
    ),
    (
        "encoder.layer.0.attention.self.key.bias",
        "blk.0.attn_k.bias",
    ),
    (
        "encoder.layer.0.attention.self.value.weight",
        "blk.0.attn_v.weight",
    ),
    (
        "encoder.layer.0.attention.self.value.bias",
        "blk.0.attn_v.bias",
    ),
];

/// A `general.architecture` whose layer 0 embedlens reads: the Hugging Face `model_type` it
/// was converted from, and what the converter changed.
struct GgufArchitecture {
    name: &'static str,
    model_type: &'static str,
    names: Names,
    conversion: Conversion,
}

/// The architectures read, as llama.cpp's `convert_hf_to_gguf.py` writes them: BERT as it is;
/// GPT-2 with `c_attn` transposed;
/// `LlamaModel`
/// permutes the query and key rows of each head (its `RoPE` turns neighbouring numbers); the
/// Gemma models (1, 2 and 3) add 1 to every norm weight; Qwen2, Qwen3 and `StableLM` are stored
/// as they are.
const ARCHITECTURES: [GgufArchitecture; 9] = [
    GgufArchitecture {
        name: "gpt2",
        model_type: "gpt2",
        names: GPT2_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: false,
            attention_weight_transposed: true,
        },
    },
    GgufArchitecture {
        name: "bert",
        model_type: "bert",
        names: BERT_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: false,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "llama",
        model_type: "llama",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: true,
            norm_weights_include_one: false,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "qwen2",
        model_type: "qwen2",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: false,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "qwen3",
        model_type: "qwen3",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: false,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "stablelm",
        model_type: "stablelm",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: false,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "gemma",
        model_type: "gemma",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: true,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "gemma2",
        model_type: "gemma2",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: true,
            attention_weight_transposed: false,
        },
    },
    GgufArchitecture {
        name: "gemma3",
        model_type: "gemma3_text",
        names: ROTARY_NAMES,
        conversion: Conversion {
            interleaved_query_key_rows: false,
            norm_weights_include_one: true,
            attention_weight_transposed: false,
        },
    },
];

/// Reads layer 0 of an opened GGUF file, or says why it cannot be computed.
pub(in crate::core::files) fn gguf_layer0(file: &GgufFile) -> Result<Layer0, Unavailable> {
    let Some(name) = file.text("general.architecture") else {
        return Err(Unavailable::GgufArchitecture(None));
    };
    let Some(architecture) = ARCHITECTURES.iter().find(|known| known.name == name) else {
        return Err(Unavailable::GgufArchitecture(Some(name.to_owned())));
    };
    let source = GgufTensors {
        file,
        names: architecture.names,
        conversion: architecture.conversion,
    };
    let settings = settings(file, architecture)?;
    load(&source, Some(&settings))
}

/// The metadata as the `config.json` settings layer 0 reads.
#[expect(
    clippy::float_cmp,
    reason = "head widths are whole numbers, exact in f64"
)]
fn settings(file: &GgufFile, architecture: &GgufArchitecture) -> Result<Settings> {
    let arch = architecture.name;
    let mut fields = Map::new();
    fields.insert("model_type".to_owned(), architecture.model_type.into());
    let mut copy = |setting: &str, key: &str| -> Result<Option<f64>> {
        let key = format!("{arch}.{key}");
        let Some(number) = first_number(file, &key)? else {
            return Ok(None);
        };
        let value = serde_json::Number::from_f64(number)
            .ok_or_else(|| anyhow!("{}: {key} is {number}", file.path().display()))?;
        fields.insert(setting.to_owned(), Value::Number(value));
        Ok(Some(number))
    };
    copy("num_attention_heads", "attention.head_count")?;
    copy("num_key_value_heads", "attention.head_count_kv")?;
    copy("rms_norm_eps", "attention.layer_norm_rms_epsilon")?;
    // BERT's name for it, and GPT-2's.
    copy("layer_norm_eps", "attention.layer_norm_epsilon")?;
    copy("layer_norm_epsilon", "attention.layer_norm_epsilon")?;
    copy("rope_theta", "rope.freq_base")?;
    copy("max_position_embeddings", "context_length")?;
    let key_length = copy("head_dim", "attention.key_length")?;
    let value_length = first_number(file, &format!("{arch}.attention.value_length"))?;
    if let (Some(keys), Some(values)) = (key_length, value_length)
        && keys != values
    {
        bail!(
            "{}: {arch}.attention.key_length {keys} and value_length {values} differ; layer 0 \
             reads heads as wide for values as for keys",
            file.path().display()
        );
    }
    // Layer 0 decides whether a scaling applies to it (Gemma 3's sliding layers have none).
    // llama.cpp reads a linear scaling without a factor other than 1 as none.
    let factor = first_number(file, &format!("{arch}.rope.scaling.factor"))?;
    let no_op = |scaling: &str| {
        scaling == "none" || (scaling == "linear" && factor.is_none_or(|f| f == 0.0 || f == 1.0))
    };
    if let Some(scaling) = file.text(&format!("{arch}.rope.scaling.type"))
        && !no_op(scaling)
    {
        fields.insert(
            "rope_scaling".to_owned(),
            serde_json::json!({ "rope_type": scaling }),
        );
    }
    if arch == "gemma2" || arch == "gemma3" {
        gemma_settings(file, arch, &mut fields, key_length)?;
    }
    if let Some(rotated) = first_number(file, &format!("{arch}.rope.dimension_count"))? {
        let head_dims = match key_length {
            Some(dims) => dims,
            None => head_width(file, arch)?,
        };
        if rotated != head_dims {
            fields.insert(
                "partial_rotary_factor".to_owned(),
                Value::from(rotated / head_dims),
            );
        }
    }
    Ok(Settings::read_from(fields, "the GGUF metadata"))
}

/// What llama.cpp's Gemma 2 and 3 code takes as given (`llama-model.cpp`): Gemma 2 alternates
/// sliding and global layers (window 4096 unless `attention.sliding_window` says) and caps its
/// scores by `attn_logit_softcapping` (50 unless the file says); Gemma 3 makes every sixth layer global and turns the
/// others by a `RoPE` base of 10000. Scores are scaled by a head's width, or by
/// `embedding_length / head_count` for the 27B models (46 and 62 layers).
fn gemma_settings(
    file: &GgufFile,
    arch: &str,
    fields: &mut Map<String, Value>,
    key_length: Option<f64>,
) -> Result<()> {
    let gemma2 = arch == "gemma2";
    fields.insert(
        "sliding_window_pattern".to_owned(),
        if gemma2 { 2 } else { 6 }.into(),
    );
    if !gemma2 {
        fields.insert("rope_local_base_freq".to_owned(), 10_000.0.into());
    }
    let window = first_number(file, &format!("{arch}.attention.sliding_window"))?;
    if let Some(window) = window.or(gemma2.then_some(4096.0)) {
        fields.insert("sliding_window".to_owned(), window.into());
    }
    if gemma2 {
        // 50 when the file does not say, as in llama.cpp and transformers.
        let cap = first_number(file, "gemma2.attn_logit_softcapping")?.unwrap_or(50.0);
        fields.insert("attn_logit_softcapping".to_owned(), cap.into());
    }
    let large = if gemma2 { 46.0 } else { 62.0 };
    let scalar = if first_number(file, &format!("{arch}.block_count"))? == Some(large) {
        head_width(file, arch)?
    } else {
        match key_length {
            Some(dims) => dims,
            None => head_width(file, arch)?,
        }
    };
    fields.insert("query_pre_attn_scalar".to_owned(), scalar.into());
    Ok(())
}

/// `embedding_length / head_count`, a head's width when the file gives no `key_length`.
fn head_width(file: &GgufFile, arch: &str) -> Result<f64> {
    let number = |key: &str| -> Result<f64> {
        first_number(file, &format!("{arch}.{key}"))?
            .ok_or_else(|| anyhow!("{}: no {arch}.{key}", file.path().display()))
    };
    Ok(number("embedding_length")? / number("attention.head_count")?)
}

/// A metadata number, or the first of an array of them (llama.cpp writes some per layer).
fn first_number(file: &GgufFile, key: &str) -> Result<Option<f64>> {
    let value = match file.get(key) {
        None => return Ok(None),
        Some(value) => match value.items() {
            Some(items) => items.get(0),
            None => Some(value.clone()),
        },
    };
    match value.as_ref().map(MetadataValue::as_f64) {
        None => Ok(None),
        Some(Some(number)) if number.is_finite() => Ok(Some(number)),
        Some(Some(number)) => bail!(
            "{}: {key} is {number}, not a finite number",
            file.path().display()
        ),
        Some(None) => bail!(
            "{}: {key} is {}, not a number",
            file.path().display(),
            file.get(key).map(ToString::to_string).unwrap_or_default()
        ),
    }
}

/// A GGUF file's tensors under the Hugging Face names of its family.
struct GgufTensors<'a> {
    file: &'a GgufFile,
    names: Names,
    conversion: Conversion,
}

impl GgufTensors<'_> {
    /// The GGUF name of a Hugging Face name, when the table has it.
    fn gguf_name(&self, name: &str) -> Option<&'static str> {
        self.names
            .iter()
            .find(|(hugging_face, _)| *hugging_face == name)
            .map(|&(_, gguf)| gguf)
    }
}

impl TensorSource for GgufTensors<'_> {
    fn shape(&self, name: &str) -> Option<TensorShape> {
        let tensor = self.file.tensor(self.gguf_name(name)?)?;
        Some(TensorShape {
            shape: tensor
                .shape()
                .iter()
                .map(|&d| usize::try_from(d).unwrap_or(usize::MAX))
                .collect(),
            dtype: tensor.ggml_type.dtype(),
        })
    }

    fn table(&self, name: &str, rows: usize, cols: usize) -> Result<Table> {
        let gguf = self
            .gguf_name(name)
            .ok_or_else(|| anyhow!("{}: no tensor named {name}", self.display_name()))?;
        let table = self.file.table(gguf)?;
        if (table.rows(), table.cols()) != (rows, cols) {
            bail!(
                "{}: {gguf} is {}×{}; layer 0 needs {rows}×{cols}",
                self.display_name(),
                table.rows(),
                table.cols()
            );
        }
        Ok(table)
    }

    fn display_name(&self) -> String {
        self.file.path().display().to_string()
    }

    fn names(&self) -> Vec<String> {
        self.names
            .iter()
            .filter(|(_, gguf)| self.file.tensor(gguf).is_some())
            .map(|&(hugging_face, _)| hugging_face.to_owned())
            .collect()
    }

    fn conversion(&self) -> Conversion {
        self.conversion
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::core::files::gguf::GgufWriter;

    /// The settings of `architecture` read from the metadata `writer` holds.
    fn settings_of(architecture: &str, writer: &GgufWriter) -> Result<Settings> {
        let bytes = Arc::new(writer.to_bytes());
        let file = GgufFile::from_bytes(bytes, Path::new("m.gguf")).unwrap();
        let found = ARCHITECTURES.iter().find(|a| a.name == architecture);
        settings(&file, found.unwrap())
    }

    /// A 46-layer gemma2 file (the 27B) whose scores are capped at `softcap`.
    fn gemma2(softcap: f32) -> GgufWriter {
        GgufWriter::new()
            .text("general.architecture", "gemma2")
            .number("gemma2.block_count", 46)
            .number("gemma2.embedding_length", 64)
            .number("gemma2.attention.head_count", 2)
            .number("gemma2.attention.key_length", 16)
            .metadata("gemma2.attn_logit_softcapping", MetadataValue::F32(softcap))
    }

    fn gemma3(layers: u32) -> Settings {
        let writer = GgufWriter::new()
            .text("general.architecture", "gemma3")
            .number("gemma3.block_count", layers)
            .number("gemma3.embedding_length", 64)
            .number("gemma3.attention.head_count", 4)
            .number("gemma3.attention.key_length", 8)
            .number("gemma3.attention.value_length", 8)
            .number("gemma3.attention.sliding_window", 512)
            .text("gemma3.rope.scaling.type", "linear")
            .metadata("gemma3.rope.scaling.factor", MetadataValue::F32(8.0));
        settings_of("gemma3", &writer).unwrap()
    }

    #[test]
    fn gemma3_settings_are_what_llama_cpp_takes_as_given() {
        let small = gemma3(18);
        assert_eq!(small.text("model_type"), Some("gemma3_text"));
        assert_eq!(small.number(&["query_pre_attn_scalar"]).unwrap(), Some(8.0));
        assert_eq!(small.number(&["sliding_window"]).unwrap(), Some(512.0));
        assert_eq!(
            small.number(&["rope_local_base_freq"]).unwrap(),
            Some(10_000.0)
        );
        assert_eq!(
            small.nested_text("rope_scaling", "rope_type"),
            Some("linear")
        );
        // The 27B model (62 layers) scales by embedding_length / head_count instead.
        let large = gemma3(62);
        assert_eq!(
            large.number(&["query_pre_attn_scalar"]).unwrap(),
            Some(16.0)
        );
        assert_eq!(large.origin(), "the GGUF metadata");
    }

    #[test]
    fn a_gguf_setting_that_is_not_a_finite_number_is_refused_by_key() {
        let error = format!(
            "{:#}",
            settings_of("gemma2", &gemma2(f32::NAN)).unwrap_err()
        );
        assert!(
            error.contains("gemma2.attn_logit_softcapping is NaN, not a finite number"),
            "{error}"
        );
    }

    #[test]
    fn gemma2_settings_cap_the_scores_and_slide_over_4096_tokens() {
        let found = settings_of("gemma2", &gemma2(50.0)).unwrap();
        assert_eq!(found.text("model_type"), Some("gemma2"));
        assert_eq!(
            found.number(&["attn_logit_softcapping"]).unwrap(),
            Some(50.0)
        );
        assert_eq!(found.number(&["sliding_window"]).unwrap(), Some(4096.0));
        assert_eq!(
            found.number(&["sliding_window_pattern"]).unwrap(),
            Some(2.0)
        );
        // 46 layers: the 27B, scaled by embedding_length / head_count rather than key_length.
        assert_eq!(
            found.number(&["query_pre_attn_scalar"]).unwrap(),
            Some(32.0)
        );
        assert!(!found.is_set("rope_local_base_freq"));
    }

    /// A two-head llama file 8 wide, with `extra` metadata.
    fn tiny_llama(name: &str, extra: &[(&str, MetadataValue)]) -> Result<Layer0, Unavailable> {
        let mut writer = GgufWriter::new()
            .text("general.architecture", "llama")
            .number("llama.embedding_length", 8)
            .number("llama.attention.head_count", 2)
            .number("llama.context_length", 16);
        for (key, value) in extra {
            writer = writer.metadata(key, value.clone());
        }
        let values: Vec<f32> = (0..64u8).map(|i| f32::from(i % 7) / 7.0 - 0.4).collect();
        writer = writer
            .f32_table("token_embd.weight", 4, 8, &values[..32])
            .tensor(
                "blk.0.attn_norm.weight",
                &[8],
                crate::core::files::gguf::GgmlType(0),
                [1.0f32; 8].iter().flat_map(|v| v.to_le_bytes()).collect(),
            );
        for projection in ["attn_q", "attn_k", "attn_v"] {
            writer = writer.f32_table(&format!("blk.0.{projection}.weight"), 8, 8, &values);
        }
        let folder = crate::core::test_fixtures::TempDir::new(name);
        let path = folder.join("tiny.gguf");
        writer.write(&path).unwrap();
        gguf_layer0(&GgufFile::open(&path).unwrap())
    }

    #[test]
    fn a_rope_scaling_that_reaches_layer_0_is_named_and_a_linear_one_of_1_is_none() {
        let yarn = tiny_llama(
            "yarn",
            &[(
                "llama.rope.scaling.type",
                MetadataValue::String("yarn".into()),
            )],
        );
        assert_eq!(
            yarn.unwrap_err(),
            Unavailable::Setting {
                name: "rope_scaling".to_owned(),
                value: "yarn".to_owned()
            }
        );
        let linear_one = tiny_llama(
            "linear",
            &[
                (
                    "llama.rope.scaling.type",
                    MetadataValue::String("linear".into()),
                ),
                ("llama.rope.scaling.factor", MetadataValue::F32(1.0)),
            ],
        );
        assert_eq!(linear_one.unwrap().heads(), 2);
        let linear_four = tiny_llama(
            "linear4",
            &[
                (
                    "llama.rope.scaling.type",
                    MetadataValue::String("linear".into()),
                ),
                ("llama.rope.scaling.factor", MetadataValue::F32(4.0)),
            ],
        );
        assert!(matches!(linear_four, Err(Unavailable::Setting { .. })));
    }

    #[test]
    fn huggingface_names_map_to_llama_cpp_names_one_to_one() {
        for names in [ROTARY_NAMES, BERT_NAMES, GPT2_NAMES] {
            for (index, (hugging_face, gguf)) in names.iter().enumerate() {
                assert!(
                    names[index + 1..]
                        .iter()
                        .all(|(h, g)| h != hugging_face && g != gguf)
                );
            }
        }
        assert!(ARCHITECTURES.iter().all(|a| !a.names.is_empty()));
    }
}
