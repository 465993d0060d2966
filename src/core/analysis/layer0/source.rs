//! Where layer 0's tensors come from: any store that can hand out a named tensor as a
//! [`Table`] read in place, plus the model's `config.json` settings.
//!
//! The checkpoint reader implements [`TensorSource`] over its memory-mapped files; tests and
//! benchmarks use [`SafetensorsBytes`], one safetensors file held in bytes.

use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use ndarray::Array1;
use safetensors::SafeTensors;
use serde_json::{Map, Value};

use crate::core::tables::block::LayerNorm;
use crate::core::tables::table::{Bytes, Dtype, Table};

/// A named tensor's shape and where its numbers are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorShape {
    /// The tensor's dimensions, outermost first.
    pub shape: Vec<usize>,
    /// How its numbers are stored, or `None` for a dtype embedlens cannot read.
    pub dtype: Option<Dtype>,
}

/// How a store's tensors differ from the Hugging Face checkpoint they were converted from.
///
/// A safetensors checkpoint is the original (both false); llama.cpp's converter changes some
/// tensors on the way into a GGUF file, and the layer must undo that in its arithmetic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conversion {
    /// Each head's query and key rows interleaved, so that the pairs `RoPE` turns together
    /// sit side by side (llama.cpp's `permute` for its Llama-family models).
    pub interleaved_query_key_rows: bool,
    /// Gemma's norm weights stored as `1 + weight`, the 1 already added (llama.cpp's Gemma
    /// converters add it, as llama.cpp's `RMSNorm` multiplies by the weight alone).
    pub norm_weights_include_one: bool,
    /// GPT-2's `c_attn` stored as a linear layer's weight, `outputs × inputs` (llama.cpp's
    /// converter transposes the `Conv1D`, which stores `inputs × outputs`).
    pub attention_weight_transposed: bool,
}

/// A store of named tensors, read in place.
pub trait TensorSource {
    /// The tensor's shape and dtype, or `None` when there is no tensor of that name.
    fn shape(&self, name: &str) -> Option<TensorShape>;

    /// The tensor's numbers as a `rows × cols` table read in place (a one-dimensional tensor
    /// of `n` numbers is `1 × n`).
    ///
    /// # Errors
    /// When the tensor is missing, is not a float tensor, or its bytes run short.
    fn table(&self, name: &str, rows: usize, cols: usize) -> Result<Table>;

    /// What to call the store in a message: its file or folder.
    fn display_name(&self) -> String;

    /// Every tensor name, in any order.
    fn names(&self) -> Vec<String>;

    /// How the tensors were changed from the Hugging Face checkpoint's (not at all, unless
    /// the store says so).
    fn conversion(&self) -> Conversion {
        Conversion::default()
    }
}

/// Whether the source holds a tensor of that name.
pub fn has(source: &dyn TensorSource, name: &str) -> bool {
    source.shape(name).is_some()
}

/// A two-dimensional float tensor of the given shape, read in place.
///
/// # Errors
/// When the tensor is missing, has another shape, or is not f32, f16 or bf16.
pub fn matrix(source: &dyn TensorSource, name: &str, rows: usize, cols: usize) -> Result<Table> {
    let found = source
        .shape(name)
        .ok_or_else(|| anyhow!("{}: no tensor named {name}", source.display_name()))?;
    if found.shape != [rows, cols] {
        bail!(
            "{}: {name} has shape {:?}; layer 0 needs {rows}×{cols}",
            source.display_name(),
            found.shape
        );
    }
    source.table(name, rows, cols)
}

/// A `LayerNorm` of `width` numbers from its weight and bias tensors, with `eps` narrowed to
/// float32 as PyTorch hands it to its kernel.
///
/// # Errors
/// When a tensor is missing or of another shape (see [`vector`]).
pub fn layer_norm(
    source: &dyn TensorSource,
    weight: &str,
    bias: &str,
    width: usize,
    eps: f64,
) -> Result<LayerNorm> {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "PyTorch hands eps to its float32 kernel"
    )]
    let eps = eps as f32;
    LayerNorm::new(
        vector(source, weight, width)?,
        vector(source, bias, width)?,
        eps,
    )
}

/// A one-dimensional float tensor of `width` numbers, read into memory (norm weights, biases).
///
/// # Errors
/// When the tensor is missing, has another shape, or is not f32, f16 or bf16.
pub fn vector(source: &dyn TensorSource, name: &str, width: usize) -> Result<Array1<f32>> {
    let found = source
        .shape(name)
        .ok_or_else(|| anyhow!("{}: no tensor named {name}", source.display_name()))?;
    if found.shape != [width] {
        bail!(
            "{}: {name} has shape {:?}; layer 0 needs {width} numbers",
            source.display_name(),
            found.shape
        );
    }
    source
        .table(name, 1, width)?
        .row(0)
        .ok_or_else(|| anyhow!("{}: {name} could not be read", source.display_name()))
}

/// A vector that may be absent (a bias the model does not have).
///
/// # Errors
/// When the tensor exists but has another shape or dtype.
pub fn optional_vector(
    source: &dyn TensorSource,
    name: &str,
    width: usize,
) -> Result<Option<Array1<f32>>> {
    if has(source, name) {
        vector(source, name, width).map(Some)
    } else {
        Ok(None)
    }
}

/// One safetensors file held in bytes (a buffer, or a map of the file).
pub struct SafetensorsBytes {
    name: String,
    bytes: Arc<dyn Bytes>,
    tensors: Vec<(String, TensorShape, usize)>,
}

impl SafetensorsBytes {
    /// Parses the header of a safetensors file's bytes.
    ///
    /// # Errors
    /// When the header is not a valid safetensors header.
    pub fn new(name: impl Into<String>, bytes: Arc<dyn Bytes>) -> Result<Self> {
        let name = name.into();
        let (header_length, metadata) = SafeTensors::read_metadata(bytes.bytes())
            .map_err(|error| anyhow!("{name}: not a safetensors file: {error}"))?;
        let data_start = 8 + header_length;
        let mut tensors = Vec::new();
        for (tensor, info) in metadata.tensors() {
            let dtype = match info.dtype {
                safetensors::Dtype::F32 => Some(Dtype::F32),
                safetensors::Dtype::F16 => Some(Dtype::F16),
                safetensors::Dtype::BF16 => Some(Dtype::BF16),
                _ => None,
            };
            let shape = TensorShape {
                shape: info.shape.clone(),
                dtype,
            };
            tensors.push((tensor, shape, data_start + info.data_offsets.0));
        }
        Ok(Self {
            name,
            bytes,
            tensors,
        })
    }

    fn entry(&self, name: &str) -> Option<&(String, TensorShape, usize)> {
        self.tensors.iter().find(|(tensor, _, _)| tensor == name)
    }
}

impl TensorSource for SafetensorsBytes {
    fn shape(&self, name: &str) -> Option<TensorShape> {
        self.entry(name).map(|(_, shape, _)| shape.clone())
    }

    fn table(&self, name: &str, rows: usize, cols: usize) -> Result<Table> {
        let (_, shape, start) = self
            .entry(name)
            .ok_or_else(|| anyhow!("{}: no tensor named {name}", self.name))?;
        let dtype = shape.dtype.ok_or_else(|| {
            anyhow!(
                "{}: {name} is not a float tensor (f32, f16 or bf16)",
                self.name
            )
        })?;
        Table::mapped(Arc::clone(&self.bytes), *start, dtype, rows, cols)
            .map_err(|error| anyhow!("{}: {name}: {error}", self.name))
    }

    fn display_name(&self) -> String {
        self.name.clone()
    }

    fn names(&self) -> Vec<String> {
        self.tensors
            .iter()
            .map(|(name, _, _)| name.clone())
            .collect()
    }
}

/// `config.json`'s settings, as far as layer 0 needs them (or the same settings read from
/// elsewhere, such as a GGUF file's metadata).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    fields: Map<String, Value>,
    origin: String,
}

impl Default for Settings {
    fn default() -> Self {
        Self::new(Map::new())
    }
}

impl Settings {
    /// The settings of a parsed `config.json` object.
    #[must_use]
    pub fn new(fields: Map<String, Value>) -> Self {
        Self::read_from(fields, "config.json")
    }

    /// Settings under `config.json`'s names, read from `origin` (named in notes and messages).
    #[must_use]
    pub fn read_from(fields: Map<String, Value>, origin: impl Into<String>) -> Self {
        Self {
            fields,
            origin: origin.into(),
        }
    }

    /// Parses `config.json` text.
    ///
    /// # Errors
    /// When the text is not a JSON object.
    pub fn parse(text: &str) -> Result<Self> {
        match serde_json::from_str(text)? {
            Value::Object(fields) => Ok(Self::new(fields)),
            other => bail!("config.json is {other}, not an object of settings"),
        }
    }

    /// Where the settings were read: `config.json`, or the file's metadata.
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// A text setting such as `model_type`.
    #[must_use]
    pub fn text(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// The first of `keys` that is set, as a number.
    ///
    /// # Errors
    /// When it is set to something that is not a number.
    pub fn number(&self, keys: &[&str]) -> Result<Option<f64>> {
        let paths: Vec<[&str; 1]> = keys.iter().map(|key| [*key]).collect();
        let paths: Vec<&[&str]> = paths.iter().map(<[&str; 1]>::as_slice).collect();
        self.number_at(&paths)
    }

    /// The first of `keys` that is set, as a whole number in `1..=limit`.
    ///
    /// # Errors
    /// When it is set to anything else.
    pub fn count(&self, keys: &[&str], limit: usize) -> Result<Option<usize>> {
        let Some(number) = self.number(keys)? else {
            return Ok(None);
        };
        #[expect(clippy::cast_precision_loss, reason = "limits are far below 2^52")]
        let in_range = number.fract() == 0.0 && number >= 1.0 && number <= limit as f64;
        if !in_range {
            bail!(
                "{}: {} is {number}, not a whole number from 1 to {limit}",
                self.origin,
                keys[0]
            );
        }
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked above to be a whole number in range"
        )]
        Ok(Some(number as usize))
    }

    /// The number at the first of `paths` that is set, each path a key inside nested objects
    /// (`["rope_parameters", "rope_theta"]`).
    ///
    /// # Errors
    /// When the first one set is something other than a number: a value of the wrong type is
    /// an error naming its key, never the default.
    pub fn number_at(&self, paths: &[&[&str]]) -> Result<Option<f64>> {
        for path in paths {
            match self.at_path(path) {
                None | Some(Value::Null) => {}
                Some(value) => {
                    return value.as_f64().map(Some).ok_or_else(|| {
                        anyhow!(
                            "{}: {} is {value}, not a number",
                            self.origin,
                            path.join(".")
                        )
                    });
                }
            }
        }
        Ok(None)
    }

    /// A nested object's text, such as `rope_scaling.rope_type`.
    #[must_use]
    pub fn nested_text(&self, object: &str, key: &str) -> Option<&str> {
        self.fields.get(object)?.get(key)?.as_str()
    }

    /// A text deeper inside nested objects.
    #[must_use]
    pub fn path_text(&self, path: &[&str]) -> Option<&str> {
        self.at_path(path)?.as_str()
    }

    fn at_path(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        rest.iter()
            .try_fold(self.fields.get(*first)?, |value, key| value.get(*key))
    }

    /// Item `index` of a list of texts, such as `layer_types[0]`.
    #[must_use]
    pub fn list_text(&self, key: &str, index: usize) -> Option<&str> {
        self.fields.get(key)?.get(index)?.as_str()
    }

    /// Whether a setting is present and not null.
    #[must_use]
    pub fn is_set(&self, key: &str) -> bool {
        !matches!(self.fields.get(key), None | Some(Value::Null))
    }

    /// A true/false setting, `default` when absent.
    ///
    /// # Errors
    /// When it is set to something that is not true or false.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(value) => value
                .as_bool()
                .ok_or_else(|| anyhow!("{}: {key} is {value}, not true or false", self.origin)),
        }
    }

    /// A setting as the file writes it (`1e39`, not forty digits), for messages and notes.
    #[must_use]
    pub fn written(&self, key: &str) -> Option<String> {
        self.fields.get(key).map(ToString::to_string)
    }

    /// The first of `keys` that is set, as a normalisation's `eps`: a number from 0 to
    /// [`MAX_EPSILON`]. The one check of every `eps` embedlens reads, for the tables and for
    /// layer 0 alike.
    ///
    /// # Errors
    /// When it is set to anything else (NaN, infinite, negative, too large, not a number).
    pub fn epsilon(&self, keys: &[&str]) -> Result<Option<f64>> {
        match self.number(keys)? {
            Some(eps) if is_epsilon(eps) => Ok(Some(eps)),
            Some(eps) => {
                let key = keys
                    .iter()
                    .find(|key| self.is_set(key))
                    .copied()
                    .unwrap_or(keys[0]);
                let written = self.written(key).unwrap_or_else(|| eps.to_string());
                bail!(
                    "{}: {key} {written} is not a small positive number (at most {MAX_EPSILON}; \
                     real models use 1e-5 to 1e-12)",
                    self.origin
                )
            }
            None => Ok(None),
        }
    }
}

/// The largest normalisation `eps` taken from a model's settings: far above any real model's,
/// far below where float32 runs out (PyTorch hands eps to its float32 kernels, so 1e39 would
/// become infinity there).
pub const MAX_EPSILON: f64 = 1.0;

/// Whether `eps` can be a normalisation's `eps`: from 0 to [`MAX_EPSILON`] (never NaN). The one
/// rule, for `config.json` ([`Settings::epsilon`]) and a GGUF file's metadata alike.
#[must_use]
pub fn is_epsilon(eps: f64) -> bool {
    (0.0..=MAX_EPSILON).contains(&eps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_of_the_wrong_type_is_an_error_naming_its_key_never_the_default() {
        let settings = Settings::parse(
            r#"{"rope_parameters": {"rope_theta": "x"}, "partial_rotary_factor": "half",
                "rope_scaling": {"factor": 8}}"#,
        )
        .unwrap();
        let nested = settings
            .number_at(&[&["rope_theta"], &["rope_parameters", "rope_theta"]])
            .unwrap_err()
            .to_string();
        assert_eq!(
            nested,
            "config.json: rope_parameters.rope_theta is \"x\", not a number"
        );
        let top = settings
            .number(&["partial_rotary_factor"])
            .unwrap_err()
            .to_string();
        assert!(top.contains("partial_rotary_factor is \"half\""), "{top}");
        assert_eq!(
            settings.number_at(&[&["rope_scaling", "factor"]]).unwrap(),
            Some(8.0)
        );
        assert_eq!(
            settings.number_at(&[&["rope_scaling", "missing"]]).unwrap(),
            None
        );
    }

    #[test]
    fn a_flag_of_the_wrong_type_is_an_error_and_an_absent_one_the_default() {
        let settings =
            Settings::parse(r#"{"scale_attn_weights": "yes", "use_cache": null}"#).unwrap();
        let error = settings
            .flag("scale_attn_weights", true)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "config.json: scale_attn_weights is \"yes\", not true or false"
        );
        assert!(settings.flag("use_cache", true).unwrap());
        assert!(!settings.flag("absent", false).unwrap());
    }

    #[test]
    fn every_eps_goes_through_one_check_that_names_the_key_as_written() {
        for (written, ok) in [
            ("1e-12", true),
            ("0", true),
            ("1", true),
            ("-1", false),
            ("1e39", false),
            ("1.5", false),
            ("\"small\"", false),
        ] {
            let settings =
                Settings::parse(&format!(r#"{{"layer_norm_epsilon": {written}}}"#)).unwrap();
            let eps = settings.epsilon(&["layer_norm_eps", "layer_norm_epsilon"]);
            assert_eq!(eps.is_ok(), ok, "{written}: {eps:?}");
            if let Err(error) = eps {
                let error = error.to_string();
                // As serde_json writes the number back: 1e39 is `1e+39`.
                let written = serde_json::from_str::<Value>(written).unwrap().to_string();
                assert!(
                    error.contains(&format!("layer_norm_epsilon {written}"))
                        || error.contains(&format!("layer_norm_epsilon is {written}")),
                    "{error}"
                );
            }
        }
        assert!(!is_epsilon(f64::NAN) && !is_epsilon(f64::INFINITY));
        assert_eq!(
            Settings::default().epsilon(&["layer_norm_eps"]).unwrap(),
            None
        );
    }
}
