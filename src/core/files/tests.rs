//! Tests of opening checkpoints: files the tests write, every failure named.

use std::path::Path;

use anyhow::Result;

use super::build::check_tokenizer_fits;
use super::detect::detect;
use super::locate::file_name;
use super::safetensors::checkpoint::Checkpoint;
use super::safetensors::{LENGTH_BYTES, read_header};
use super::*;
use crate::core::tables::block::{EmbeddingBlock, ModelFamily};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::table::Table;
use crate::core::tables::weights::TokenLookup;
use crate::core::test_fixtures::TempDir;
use crate::core::text::tokenizer::TextTokenizer;
use crate::core::text::vocabulary::{Token, Vocabulary};
use ::safetensors::tensor::TensorView;

/// A tensor to write: name, dtype, shape and values (converted to the dtype).
struct Spec {
    name: &'static str,
    dtype: ::safetensors::Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

fn tensor(
    name: &'static str,
    dtype: ::safetensors::Dtype,
    shape: &[usize],
    values: &[f32],
) -> Spec {
    let bytes = values
        .iter()
        .flat_map(|&v| match dtype {
            ::safetensors::Dtype::F32 => v.to_le_bytes().to_vec(),
            ::safetensors::Dtype::F16 => half::f16::from_f32(v).to_le_bytes().to_vec(),
            ::safetensors::Dtype::BF16 => half::bf16::from_f32(v).to_le_bytes().to_vec(),
            other => panic!("test helper does not write {other}"),
        })
        .collect();
    Spec {
        name,
        dtype,
        shape: shape.to_vec(),
        bytes,
    }
}

fn f32_tensor(name: &'static str, shape: &[usize], values: &[f32]) -> Spec {
    tensor(name, ::safetensors::Dtype::F32, shape, values)
}

/// `rows × cols` values `start, start + 1, ...` divided by 8 (exact in every dtype).
fn counting(name: &'static str, rows: usize, cols: usize, start: f32) -> Spec {
    #[expect(clippy::cast_precision_loss, reason = "tiny test values")]
    let values: Vec<f32> = (0..rows * cols).map(|i| (start + i as f32) / 8.0).collect();
    f32_tensor(name, &[rows, cols], &values)
}

fn serialize(specs: &[Spec]) -> Vec<u8> {
    let views: Vec<(&str, TensorView<'_>)> = specs
        .iter()
        .map(|s| {
            (
                s.name,
                TensorView::new(s.dtype, s.shape.clone(), &s.bytes).unwrap(),
            )
        })
        .collect();
    ::safetensors::serialize(views, None).unwrap()
}

fn write(path: &Path, specs: &[Spec]) {
    std::fs::write(path, serialize(specs)).unwrap();
}

/// A safetensors file from a hand-written header and data.
fn raw_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    bytes
}

fn open(path: &Path) -> Result<EmbeddingModel> {
    super::open(&FileSource::path(path), &OpenOptions::default()).map(|opened| opened.model)
}

fn open_error(path: &Path) -> String {
    format!("{:#}", open(path).unwrap_err())
}

fn row(model: &EmbeddingModel, id: usize) -> Vec<f32> {
    model.lookup(id).unwrap().to_vec()
}

fn lookup_at(model: &EmbeddingModel, id: usize, position: usize) -> TokenLookup {
    let token = Token {
        text: format!("#{id}"),
        span: 0..0,
        position,
        id: Some(id),
        special: false,
        unknown: false,
    };
    model.embed(&[token], PositionScheme::None).remove(0)
}

fn gpt2_specs(token_name: &'static str, position_name: &'static str) -> Vec<Spec> {
    vec![
        counting(token_name, 5, 3, 0.0),
        counting(position_name, 4, 3, 100.0),
    ]
}

#[test]
fn every_float_dtype_reads_exactly() {
    let values = [1.0f32, -2.5, 0.375, 65504.0, -0.000_061_035_156, 3.0];
    for dtype in [
        ::safetensors::Dtype::F32,
        ::safetensors::Dtype::F16,
        ::safetensors::Dtype::BF16,
    ] {
        let dir = TempDir::new("dtype");
        let file = dir.join("weights.safetensors");
        write(&file, &[tensor("wte.weight", dtype, &[2, 3], &values)]);
        let model = open(&file).unwrap();
        let expected: Vec<f32> = values[3..]
            .iter()
            .map(|&v| match dtype {
                ::safetensors::Dtype::BF16 => half::bf16::from_f32(v).to_f32(),
                _ => v,
            })
            .collect();
        assert_eq!(row(&model, 1), expected, "{dtype}");
        assert_eq!(row(&model, 0)[..3], [1.0, -2.5, 0.375], "{dtype}");
        let table_dtype = model.token_table().dtype().unwrap().to_string();
        assert_eq!(table_dtype, dtype.to_string().to_lowercase());
        assert_eq!(model.source(), Some(file.as_path()));
        assert_eq!(model.label(), "weights");
    }
}

#[test]
fn gpt2_names_with_and_without_the_transformer_prefix() {
    for (wte, wpe) in [
        ("wte.weight", "wpe.weight"),
        ("transformer.wte.weight", "transformer.wpe.weight"),
        ("h.transformer.wte.weight", "h.transformer.wpe.weight"),
    ] {
        let dir = TempDir::new("gpt2");
        let mut specs = gpt2_specs(wte, wpe);
        specs.push(f32_tensor("h.0.ln_1.weight", &[3], &[1.0, 1.0, 1.0]));
        write(&dir.join("model.safetensors"), &specs);
        let model = open(dir.path()).unwrap();
        assert_eq!(model.family(), ModelFamily::Gpt2);
        assert_eq!(model.block(), &EmbeddingBlock::Sum);
        assert_eq!(
            (model.rows(), model.dims(), model.context_length()),
            (5, 3, 4)
        );
        let detection = model.detection().join("\n");
        assert!(
            detection.contains(&format!("token table: {wte} (GPT-2 name")),
            "{detection}"
        );
        assert!(detection.contains(&format!("position table: {wpe} (GPT-2), 4×3 f32")));
        assert!(detection.contains("no tokenizer"));
        assert!(model.warnings().is_empty(), "{:?}", model.warnings());
        assert_eq!(model.tokenizer().map(TextTokenizer::name), None);
    }
}

#[test]
fn gpt2_model_embedding_is_token_row_plus_position_row_exactly() {
    let dir = TempDir::new("gpt2-sum");
    write(
        &dir.join("model.safetensors"),
        &[
            f32_tensor("wte.weight", &[2, 2], &[0.1, 0.2, 0.3, 0.7]),
            f32_tensor("wpe.weight", &[2, 2], &[0.01, -0.5, 1e-8, 3.3]),
        ],
    );
    let model = open(dir.path()).unwrap();
    let lookup = lookup_at(&model, 1, 1);
    let expected = vec![0.3f32 + 1e-8, 0.7 + 3.3];
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let got = model.model_embedding(&lookup).unwrap().to_vec();
    assert_eq!(bits(&got), bits(&expected));
    assert_eq!(lookup.model_embedding.unwrap().to_vec(), got);
    // Beyond the two learned positions there is no model embedding.
    assert_eq!(lookup_at(&model, 1, 2).model_embedding, None);
}

fn bert_specs() -> Vec<Spec> {
    vec![
        f32_tensor(
            "bert.embeddings.word_embeddings.weight",
            &[3, 4],
            &[0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 0.25, 2.0],
        ),
        f32_tensor(
            "bert.embeddings.position_embeddings.weight",
            &[2, 4],
            &[0.5, 0.5, 0.5, 0.5, 0.0, -1.0, 1.0, 0.0],
        ),
        f32_tensor(
            "bert.embeddings.token_type_embeddings.weight",
            &[2, 4],
            &[0.25, 0.0, -0.25, 1.0, 9.0, 9.0, 9.0, 9.0],
        ),
        f32_tensor(
            "bert.embeddings.LayerNorm.weight",
            &[4],
            &[1.0, 2.0, 0.5, 1.0],
        ),
        f32_tensor(
            "bert.embeddings.LayerNorm.bias",
            &[4],
            &[0.0, 0.1, -0.1, 0.0],
        ),
        f32_tensor("bert.pooler.dense.bias", &[4], &[0.0; 4]),
    ]
}

#[test]
fn bert_reads_token_types_layer_norm_and_config_eps() {
    let dir = TempDir::new("bert");
    write(&dir.join("model.safetensors"), &bert_specs());
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "bert", "layer_norm_eps": 1e-5}"#,
    )
    .unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Bert);
    assert_eq!(model.position_offset(), 0);
    let EmbeddingBlock::Bert {
        token_type_row,
        norm,
    } = model.block()
    else {
        panic!("expected a BERT block, got {:?}", model.block());
    };
    assert_eq!(token_type_row.to_vec(), [0.25, 0.0, -0.25, 1.0]);
    assert_eq!(norm.eps().to_bits(), 1e-5f32.to_bits());
    assert_eq!(norm.weight().to_vec(), [1.0, 2.0, 0.5, 1.0]);
    let detection = model.detection().join("\n");
    assert!(detection.contains("(BERT-style name)"), "{detection}");
    assert!(
        detection.contains("eps 1e-5 (layer_norm_eps in config.json)"),
        "{detection}"
    );
    assert!(detection.contains("LayerNorm(token + token type + position)"));

    // Token 1 at position 1: (token + type) + position = [1.25, 1, 3.75, 5].
    // Hand computation: mean 2.75, biased variance 2.84375, eps 1e-5,
    // normalised = (x - 2.75) / sqrt(2.84376) = [-0.889498, -1.037747, 0.592998, 1.334246];
    // times weight [1, 2, 0.5, 1] plus bias [0, 0.1, -0.1, 0].
    let got = model.model_embedding(&lookup_at(&model, 1, 1)).unwrap();
    let want = [-0.889_497_616, -1.975_494_437, 0.196_499_205, 1.334_246_424];
    for (g, w) in got.iter().zip(want) {
        assert!((f64::from(*g) - w).abs() < 1e-6, "{got} vs {want:?}");
    }
}

#[test]
fn bert_without_config_uses_the_default_eps_and_old_gamma_beta_names() {
    let dir = TempDir::new("bert-gamma");
    let mut specs = bert_specs();
    specs[3].name = "bert.embeddings.LayerNorm.gamma";
    specs[4].name = "bert.embeddings.LayerNorm.beta";
    write(&dir.join("model.safetensors"), &specs);
    let model = open(dir.path()).unwrap();
    let EmbeddingBlock::Bert { norm, .. } = model.block() else {
        panic!("expected a BERT block");
    };
    assert_eq!(norm.eps().to_bits(), DEFAULT_LAYER_NORM_EPS.to_bits());
    assert!(model.detection().join("\n").contains("LayerNorm.gamma"));
}

#[test]
fn roberta_positions_start_after_the_padding_id() {
    let dir = TempDir::new("roberta");
    write(
        &dir.join("model.safetensors"),
        &[
            counting("roberta.embeddings.word_embeddings.weight", 4, 2, 0.0),
            counting("roberta.embeddings.position_embeddings.weight", 5, 2, 50.0),
            f32_tensor("roberta.embeddings.LayerNorm.weight", &[2], &[1.0, 1.0]),
            f32_tensor("roberta.embeddings.LayerNorm.bias", &[2], &[0.0, 0.0]),
        ],
    );
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "roberta", "pad_token_id": 1}"#,
    )
    .unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Bert);
    assert_eq!(model.family_name(), "roberta");
    assert_eq!(model.position_offset(), 2);
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("under the prefix roberta."),
        "{detection}"
    );
    assert!(detection.contains("no token_type_embeddings"));
    // Position 2 reads row 4, the last; position 3 has no row.
    assert!(lookup_at(&model, 0, 2).model_embedding.is_some());
    assert_eq!(lookup_at(&model, 0, 3).model_embedding, None);
}

#[test]
fn mpnet_counts_positions_from_the_padding_id_and_skips_padding() {
    let dir = TempDir::new("mpnet");
    write(
        &dir.join("model.safetensors"),
        &[
            counting("embeddings.word_embeddings.weight", 4, 2, 0.0),
            counting("embeddings.position_embeddings.weight", 6, 2, 50.0),
        ],
    );
    // MPNet, by model type; its pad id 1 puts the first token at row 2.
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "mpnet", "pad_token_id": 1, "max_position_embeddings": 6}"#,
    )
    .unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.position_offset(), 2);
    // Read with BERT's layout, but named as its config names it.
    assert_eq!(model.family(), ModelFamily::Bert);
    assert_eq!(model.family_name(), "mpnet");
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("position p reads row p + 2"),
        "{detection}"
    );
    assert!(
        detection.contains("a padding token is not counted and reads row 1"),
        "{detection}"
    );
    // Tokens 3, pad, 0: rows 2, 1 (the padding row), then 3 (the pad is not counted).
    let tokens: Vec<Token> = [3, 1, 0]
        .iter()
        .enumerate()
        .map(|(position, &id)| Token {
            text: format!("#{id}"),
            span: 0..0,
            position,
            id: Some(id),
            special: false,
            unknown: false,
        })
        .collect();
    assert_eq!(
        model.model_position_rows(&tokens),
        [Some(2), Some(1), Some(3)]
    );
    let lookups = model.embed(&tokens, PositionScheme::None);
    let positions = model.position_table().unwrap();
    let expected = lookups[2].token_vector.as_ref().unwrap() + &positions.row(3).unwrap();
    assert_eq!(lookups[2].model_embedding.as_ref(), Some(&expected));
    assert_eq!(model.model_embedding(&lookups[2]), Some(expected));
    let padding = lookups[1].token_vector.as_ref().unwrap() + &positions.row(1).unwrap();
    assert_eq!(lookups[1].model_embedding, Some(padding));

    // Any model type: 514 rows for pad id 1 (512 + 1 + 1) is the mark of counted positions.
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "new-roberta-kin", "pad_token_id": 1, "max_position_embeddings": 514}"#,
    )
    .unwrap();
    assert_eq!(open(dir.path()).unwrap().position_offset(), 2);
    // BERT: pad id 0 and 512 rows, positions from 0.
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "bert", "pad_token_id": 0, "max_position_embeddings": 512}"#,
    )
    .unwrap();
    let bert = open(dir.path()).unwrap();
    assert_eq!(bert.position_offset(), 0);
    assert_eq!(
        bert.model_position_rows(&tokens),
        [Some(0), Some(1), Some(2)]
    );
}

#[test]
fn llama_names_have_no_position_table() {
    for name in ["model.embed_tokens.weight", "embed_tokens.weight"] {
        let dir = TempDir::new("llama");
        write(
            &dir.join("model.safetensors"),
            &[
                counting(name, 4, 2, 0.0),
                counting("lm_head.weight", 4, 2, 0.0),
            ],
        );
        std::fs::write(
            dir.join("config.json"),
            r#"{"model_type": "llama", "rope_theta": 10000.0}"#,
        )
        .unwrap();
        let model = open(dir.path()).unwrap();
        assert_eq!(model.family(), ModelFamily::Rotary);
        assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);
        assert_eq!(model.position_table().map(Table::rows), None);
        let detection = model.detection().join("\n");
        assert!(
            detection.contains(&format!(
                "no position table: {name} is a Llama-style name; these models rotate \
                 queries and keys inside attention (RoPE) instead"
            )),
            "{detection}"
        );
        assert!(detection.contains("rope_theta 10000.0"), "{detection}");
        let lookup = lookup_at(&model, 3, 7);
        assert_eq!(lookup.model_embedding, lookup.token_vector);
    }
}

#[test]
fn embed_tokens_beside_learned_positions_is_not_called_rotary() {
    let dir = TempDir::new("opt");
    write(
        &dir.join("model.safetensors"),
        &[
            counting("model.decoder.embed_tokens.weight", 4, 2, 0.0),
            counting("model.decoder.embed_positions.weight", 6, 2, 0.0),
        ],
    );
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Unknown);
    assert!(model.detection().join("\n").contains("OPT and BART"));
}

#[test]
fn sharded_folders_follow_the_index() {
    let dir = TempDir::new("sharded");
    write(
        &dir.join("model-00001-of-00002.safetensors"),
        &[counting("transformer.wte.weight", 5, 3, 0.0)],
    );
    write(
        &dir.join("model-00002-of-00002.safetensors"),
        &[
            counting("transformer.wpe.weight", 4, 3, 100.0),
            counting("transformer.h.0.attn.c_attn.weight", 3, 9, 0.0),
        ],
    );
    let index = r#"{"metadata": {"total_size": 0}, "weight_map": {
        "transformer.wte.weight": "model-00001-of-00002.safetensors",
        "transformer.wpe.weight": "model-00002-of-00002.safetensors",
        "transformer.h.0.attn.c_attn.weight": "model-00002-of-00002.safetensors"}}"#;
    std::fs::write(dir.join("model.safetensors.index.json"), index).unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Gpt2);
    assert_eq!(row(&model, 1), [0.375, 0.5, 0.625]);
    assert_eq!(
        model.position_table().unwrap().row(0).unwrap().to_vec(),
        [12.5, 12.625, 12.75]
    );
    assert!(model.detection()[0].contains("2 shards named by model.safetensors.index.json"));

    let inspection = inspect(&FileSource::path(dir.path())).unwrap();
    assert_eq!(inspection.files.len(), 2);
    let wte = &inspection.tensors[2];
    assert_eq!(wte.name, "transformer.wte.weight");
    assert_eq!(file_name(&wte.file), "model-00001-of-00002.safetensors");

    // An index that names a tensor its shard lacks is an error naming the index.
    let broken = index.replace(
        "\"transformer.wte.weight\": \"model-00001",
        "\"transformer.wte.weight\": \"model-00002",
    );
    std::fs::write(dir.join("model.safetensors.index.json"), broken).unwrap();
    let error = open_error(dir.path());
    assert!(
        error.contains(
            "model.safetensors.index.json: says transformer.wte.weight is in model-00002"
        ),
        "{error}"
    );
}

#[test]
fn overrides_choose_the_tables() {
    let dir = TempDir::new("overrides");
    let file = dir.join("custom.safetensors");
    write(
        &file,
        &[
            counting("encoder.tok.weight", 4, 2, 0.0),
            counting("encoder.pos.weight", 3, 2, 10.0),
        ],
    );
    let error = open_error(&file);
    assert!(error.contains("found no embedding table"), "{error}");
    assert!(
        error.contains("encoder.pos.weight, encoder.tok.weight"),
        "{error}"
    );

    let options = OpenOptions {
        token_tensor: Some("encoder.tok.weight".to_owned()),
        ..OpenOptions::default()
    };
    let model = super::open(&FileSource::path(&file), &options)
        .map(|opened| opened.model)
        .unwrap();
    assert_eq!(model.family(), ModelFamily::Unknown);
    assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);

    let options = OpenOptions {
        token_tensor: Some("encoder.tok.weight".to_owned()),
        position_tensor: Some("encoder.pos.weight".to_owned()),
        tokenizer: None,
    };
    let model = super::open(&FileSource::path(&file), &options)
        .map(|opened| opened.model)
        .unwrap();
    assert_eq!(model.block(), &EmbeddingBlock::Sum);
    assert_eq!(model.context_length(), 3);
    assert!(
        model
            .detection()
            .iter()
            .any(|s| s == "position table: encoder.pos.weight (chosen by name), 3×2 f32")
    );

    let options = OpenOptions {
        position_tensor: Some("encoder.missing.weight".to_owned()),
        ..options
    };
    let error = format!(
        "{:#}",
        super::open(&FileSource::path(&file), &options)
            .map(|opened| opened.model)
            .unwrap_err()
    );
    assert!(
        error.contains("custom.safetensors: no tensor named encoder.missing.weight; it holds"),
        "{error}"
    );
}

#[test]
fn missing_paths_and_empty_folders_are_named() {
    let dir = TempDir::new("missing");
    let error = open_error(&dir.join("nothing-here"));
    assert!(
        error.ends_with("nothing-here: no such file or folder"),
        "{error}"
    );
    let error = open_error(dir.path());
    assert!(
        error.contains("no safetensors file in this folder"),
        "{error}"
    );
    let error = inspect(&FileSource::path(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("no safetensors file"), "{error}");
}

#[test]
fn truncated_and_corrupt_files_are_named() {
    let dir = TempDir::new("corrupt");
    let valid = serialize(&gpt2_specs("wte.weight", "wpe.weight"));
    let file = dir.join("model.safetensors");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (valid[..4].to_vec(), "only 4 bytes, too short"),
        (
            valid[..20].to_vec(),
            "the header length in the first 8 bytes says",
        ),
        (
            valid[..valid.len() - 5].to_vec(),
            "the header says the tensor data takes 108 bytes, but only 103 follow",
        ),
        (
            {
                let mut bytes = valid.clone();
                bytes[..8].copy_from_slice(&1_000_000u64.to_le_bytes());
                bytes
            },
            "says 1000000 bytes, but only",
        ),
        (
            raw_file(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]}}"#,
                &[0; 24],
            ),
            "the header says the tensor data takes 32 bytes, but only 24 follow",
        ),
        (
            raw_file(r#"{"wte.weight": not json"#, &[]),
            "not valid safetensors JSON",
        ),
        (
            raw_file(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,32]}}"#,
                &[0; 32],
            ),
            "data_offsets do not match its shape and dtype",
        ),
    ];
    for (bytes, expected) in cases {
        std::fs::write(&file, &bytes).unwrap();
        for error in [
            open_error(dir.path()),
            format!("{:#}", inspect(&FileSource::path(dir.path())).unwrap_err()),
        ] {
            assert!(error.contains("model.safetensors: "), "{error}");
            assert!(error.contains(expected), "{error}\nwanted: {expected}");
        }
    }
}

#[test]
fn tables_must_be_two_dimensional_floats_of_one_width() {
    let dir = TempDir::new("shapes");
    let file = dir.join("model.safetensors");
    let ids: Vec<u8> = (0..6i64).flat_map(i64::to_le_bytes).collect();
    let cases: Vec<(Vec<Spec>, &str)> = vec![
        (
            vec![Spec {
                name: "wte.weight",
                dtype: ::safetensors::Dtype::I64,
                shape: vec![2, 3],
                bytes: ids,
            }],
            "model.safetensors: tensor wte.weight is I64; embedding tables must be f32, f16 or bf16",
        ),
        (
            vec![f32_tensor("wte.weight", &[1, 2, 3], &[0.0; 6])],
            "tensor wte.weight has shape [1, 2, 3]; an embedding table must be two-dimensional",
        ),
        (
            vec![
                counting("wte.weight", 2, 3, 0.0),
                counting("wpe.weight", 2, 4, 0.0),
            ],
            "the token table wte.weight is 3 wide but the position table wpe.weight is 4 wide",
        ),
        (
            vec![f32_tensor("wte.weight", &[0, 3], &[])],
            "is 0×3; an embedding table needs at least one row",
        ),
    ];
    for (specs, expected) in cases {
        write(&file, &specs);
        let error = open_error(&file);
        assert!(error.contains(expected), "{error}\nwanted: {expected}");
        // Inspect still lists the tensors and says why they cannot be read.
        let inspection = inspect(&FileSource::path(&file)).unwrap();
        assert!(inspection.detection.join("\n").contains(expected));
    }
}

#[test]
fn malformed_config_is_named() {
    let dir = TempDir::new("config");
    write(&dir.join("model.safetensors"), &bert_specs());
    std::fs::write(dir.join("config.json"), "{ not json").unwrap();
    let error = open_error(dir.path());
    assert!(error.contains("config.json: not valid JSON"), "{error}");
    std::fs::write(dir.join("config.json"), r#"{"layer_norm_eps": "small"}"#).unwrap();
    let error = open_error(dir.path());
    assert!(
        error.contains("config.json: layer_norm_eps is \"small\", not a number"),
        "{error}"
    );
    std::fs::write(dir.join("config.json"), "[1, 2]").unwrap();
    assert!(open_error(dir.path()).contains("config.json: expected a JSON object"));
}

#[test]
fn a_tokenizer_past_the_table_or_short_of_it_is_warned_about() {
    let words = |n: usize| {
        TextTokenizer::Words(Vocabulary::new(
            "test",
            (0..n).map(|i| format!("w{i}")).collect(),
        ))
    };
    let path = Path::new("tok/tokenizer.json");
    let past = check_tokenizer_fits(&words(6), path, 5, "wte.weight").unwrap();
    assert_eq!(
        past,
        "tok/tokenizer.json: the tokenizer hands out ids up to 5, but the token table \
         wte.weight has only 5 rows (ids 0 to 4); a token with a higher id has no row and is \
         shown without a vector"
    );
    assert_eq!(check_tokenizer_fits(&words(5), path, 5, "wte.weight"), None);
    let padding = check_tokenizer_fits(&words(3), path, 5, "wte.weight").unwrap();
    assert!(
        padding.contains("rows 3 to 4 are never produced"),
        "{padding}"
    );
}

#[test]
fn the_folders_tokenizer_names_the_rows() {
    let dir = TempDir::new("tokenizer-json");
    write(
        &dir.join("model.safetensors"),
        &gpt2_specs("wte.weight", "wpe.weight"),
    );
    let tokenizer = r#"{"version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null, "decoder": null, "model": {"type": "WordLevel",
        "vocab": {"fox": 0, "bites": 1, "the": 2, "[UNK]": 3}, "unk_token": "[UNK]"}}"#;
    std::fs::write(dir.join("tokenizer.json"), tokenizer).unwrap();
    let model = open(dir.path()).unwrap();
    let ids: Vec<Option<usize>> = model
        .tokenize("the fox")
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, [Some(2), Some(0)]);
    assert!(
        model
            .warnings()
            .iter()
            .any(|w| w.contains("rows 4 to 4 are never produced")),
        "{:?}",
        model.warnings()
    );

    // Six ids for a five-row table (as a published tokenizer's multimodal placeholder can be):
    // the model opens, warns, and the token past the table has no row.
    let bigger = tokenizer.replace(r#""[UNK]": 3}"#, r#""[UNK]": 3, "a": 4, "b": 5}"#);
    std::fs::write(dir.join("tokenizer.json"), bigger).unwrap();
    let model = open(dir.path()).unwrap();
    assert!(
        model
            .warnings()
            .iter()
            .any(|w| w.contains("tokenizer.json: the tokenizer hands out ids up to 5")),
        "{:?}",
        model.warnings()
    );
    let tokens = model.tokenize("the b").unwrap();
    assert_eq!(tokens[1].id, Some(5));
    let lookups = model.embed(&tokens, PositionScheme::Learned);
    assert!(lookups[0].token_vector.is_some());
    assert_eq!(lookups[1].token_vector, None, "id 5 has no row");
    assert_eq!(lookups[1].input_vector, None);
}

#[test]
fn a_missing_tokenizer_file_is_named() {
    let dir = TempDir::new("tokenizer");
    write(
        &dir.join("model.safetensors"),
        &gpt2_specs("wte.weight", "wpe.weight"),
    );
    let options = OpenOptions {
        tokenizer: Some(dir.join("absent.json")),
        ..OpenOptions::default()
    };
    let error = format!(
        "{:#}",
        super::open(&FileSource::path(dir.path()), &options)
            .map(|opened| opened.model)
            .unwrap_err()
    );
    assert!(error.contains("absent.json"), "{error}");
}

#[test]
fn non_finite_weights_are_shown_and_warned_about() {
    let dir = TempDir::new("nan");
    write(
        &dir.join("model.safetensors"),
        &[f32_tensor(
            "wte.weight",
            &[2, 3],
            &[1.0, 2.0, 3.0, f32::NAN, f32::INFINITY, 0.5],
        )],
    );
    let model = open(dir.path()).unwrap();
    assert_eq!(model.non_finite_warning(0), None);
    let values = row(&model, 1);
    assert!(values[0].is_nan() && values[1] == f32::INFINITY);
    let warning = model.non_finite_warning(1).unwrap();
    assert!(
        warning.starts_with("row 1 holds 1 NaN value and 1 infinite value"),
        "{warning}"
    );
    assert_eq!(model.non_finite_warning(9), None);
}

#[test]
fn inspection_lists_every_tensor_aligned() {
    let dir = TempDir::new("inspect");
    let mut specs = bert_specs();
    specs.push(Spec {
        name: "bert.embeddings.position_ids",
        dtype: ::safetensors::Dtype::I64,
        shape: vec![1, 2],
        bytes: [0i64, 1].iter().flat_map(|v| v.to_le_bytes()).collect(),
    });
    write(&dir.join("model.safetensors"), &specs);
    let inspection = inspect(&FileSource::path(dir.path())).unwrap();
    assert_eq!(inspection.tensors.len(), 7);
    let position_ids = inspection
        .tensors
        .iter()
        .find(|t| t.name == "bert.embeddings.position_ids")
        .unwrap();
    assert_eq!(
        (position_ids.dtype.as_str(), position_ids.shape.as_slice()),
        ("I64", &[1, 2][..])
    );
    let text = inspection.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(": 7 tensors in 1 file"), "{text}");
    assert_eq!(
        lines[2],
        "name                                          dtype  shape  file"
    );
    assert_eq!(
        lines[3],
        "bert.embeddings.LayerNorm.bias                F32        4  model.safetensors"
    );
    assert!(
        text.contains(
            "bert.embeddings.word_embeddings.weight        F32      3×4  model.safetensors"
        ),
        "{text}"
    );
    assert!(
        text.contains("\ndetected:\n  read from model.safetensors"),
        "{text}"
    );
    assert!(
        text.contains(
            "token table: bert.embeddings.word_embeddings.weight (BERT-style name), 3×4 f32"
        ),
        "{text}"
    );
}

#[test]
fn header_parsing_reads_only_the_header() {
    // A buffer whose data region is all NaN bytes: parsing succeeds without judging them.
    let mut bytes = raw_file(
        r#"{"wte.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}}"#,
        &[0xFF; 8],
    );
    let (length, infos) = read_header(Path::new("x.safetensors"), &bytes).unwrap();
    assert_eq!(length + LENGTH_BYTES + 8, bytes.len());
    assert_eq!(infos[0].1.shape, [1, 2]);
    bytes.truncate(3);
    assert!(read_header(Path::new("x.safetensors"), &bytes).is_err());
}

#[test]
fn detection_decides_where_positions_come_from_as_a_value() {
    let source = |specs: &[Spec], config: Option<&str>| {
        let dir = TempDir::new("position-source");
        write(&dir.join("model.safetensors"), specs);
        if let Some(config) = config {
            std::fs::write(dir.join("config.json"), config).unwrap();
        }
        let checkpoint = Checkpoint::read(dir.path()).unwrap();
        detect(&checkpoint, &OpenOptions::default())
            .unwrap()
            .position_source
    };
    assert!(matches!(
        source(&gpt2_specs("wte.weight", "wpe.weight"), None),
        PositionSource::Learned {
            origin: LearnedOrigin::Gpt2,
            ..
        }
    ));
    assert_eq!(
        source(&[counting("wte.weight", 4, 2, 0.0)], None),
        PositionSource::None(NoPositions::Missing {
            expected: "wpe.weight".to_owned()
        })
    );
    assert_eq!(
        source(
            &[counting("model.embed_tokens.weight", 4, 2, 0.0)],
            Some(r#"{"model_type": "llama", "rope_theta": 500000.0}"#)
        ),
        PositionSource::Rotary {
            rope_theta: Some("500000.0".to_owned())
        }
    );
    assert_eq!(
        source(
            &[counting("model.embed_tokens.weight", 4, 2, 0.0)],
            Some(r#"{"model_type": "t5"}"#)
        ),
        PositionSource::None(NoPositions::InsideLayers {
            model_type: "t5".to_owned()
        })
    );
}

#[test]
fn gemma_scales_token_vectors_by_root_width_in_the_models_dtype() {
    // Expected values printed by PyTorch: `w * torch.tensor(3 ** 0.5, dtype=w.dtype)`.
    let cases: [(::safetensors::Dtype, [f32; 3], [f32; 3], &str); 3] = [
        (
            ::safetensors::Dtype::BF16,
            [65504.0, -0.000_061_035_156, 3.0],
            [113_664.0, -0.000_105_857_85, 5.1875],
            "1.734375",
        ),
        (
            ::safetensors::Dtype::F16,
            [1000.0, -0.000_061_035_156, 3.0],
            [1732.0, -0.000_105_738_64, 5.195_312_5],
            "1.7324219",
        ),
        (
            ::safetensors::Dtype::F32,
            [65504.0, -0.000_061_035_156, 3.0],
            [113_456.26, -0.000_105_715_99, 5.196_152],
            "1.7320508",
        ),
    ];
    for (dtype, values, expected, scale) in cases {
        let dir = TempDir::new("gemma");
        let mut all = vec![1.0, -2.5, 0.375];
        all.extend(values);
        write(
            &dir.join("model.safetensors"),
            &[tensor("model.embed_tokens.weight", dtype, &[2, 3], &all)],
        );
        std::fs::write(dir.join("config.json"), r#"{"model_type": "gemma2"}"#).unwrap();
        let model = open(dir.path()).unwrap();
        let output = lookup_at(&model, 1, 4).model_embedding.unwrap();
        assert_eq!(output.to_vec(), expected, "{dtype}");
        let detection = model.detection().join("\n");
        assert!(
            detection.contains(&format!("token × {scale} (Gemma's √width")),
            "{detection}"
        );
        assert!(model.warnings().iter().all(|w| !w.contains("Gemma")));
    }
}
