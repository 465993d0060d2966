//! Opening a GGUF file (as llama.cpp, Ollama and LM Studio keep models) as a model, and listing
//! what it holds: the second file format beside safetensors, yielding the same tables and
//! [`Provenance`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use ndarray::Array1;

use super::detect::{GgufBert, GgufDetected, detect_gguf};
use super::{
    GgufFile, HUGGING_FACE_JSON, Items, MetadataValue, embedded_json, embedded_tokenizer,
    lazy_tokenizer, tokenizer_plan,
};
use crate::core::files::OpenOptions;
use crate::core::files::build::{LoadedTokenizer, check_ids_fit, check_tokenizer_fits};
use crate::core::files::inspect::{Inspection, TensorSummary};
use crate::core::files::locate::MAPPED;
use crate::core::tables::block::{EmbeddingBlock, LayerNorm, ModelFamily, Precision};
use crate::core::tables::table::Table;
use crate::core::tables::weights::{EmbeddingModel, Provenance, TOKENIZER_HINT};
use crate::core::text::tokenizer::{COUNTED_AT_ONCE, Names, TextTokenizer};

/// Opens a GGUF file as a model named `label`; `found` says where it was found, when it was
/// not named by its path (an Ollama model).
///
/// # Errors
/// When the file is not readable GGUF, it has no token table by the expected (or chosen) name,
/// a table's type cannot be dequantized, the tables disagree in width, or a `tokenizer.json`
/// named or beside the file cannot be read or does not fit. A tokenizer in the metadata that
/// cannot be rebuilt is not an error: the model opens for ids, and says why.
pub(in crate::core::files) fn open_gguf(
    file: &Arc<GgufFile>,
    label: String,
    found: Option<String>,
    options: &OpenOptions,
) -> Result<EmbeddingModel> {
    let path = file.path();
    let detected = detect_gguf(file, options)?;
    let (token, position, block, block_sentences) = read_tables(file, &detected)?;
    let tokenizer = load_tokenizer(file, Some(file), options, &token, &detected.token, &label)?;

    let mut detection: Vec<String> = found.into_iter().collect();
    detection.push(file_note(path, file));
    detection.extend(detected.sentences());
    detection.extend(block_sentences);
    detection.push(tokenizer.sentence);
    let mut warnings = detected.warnings();
    warnings.extend(tokenizer.warning);
    let provenance = Provenance {
        family: detected.family,
        block,
        detection,
        warnings,
        source: Some(path.to_owned()),
        position_offset: 0,
        padding_id: None,
        model_type: None,
        gguf: true,
    };
    let model = EmbeddingModel::new(label, tokenizer.tokenizer, token, position)
        .with_provenance(provenance);
    Ok(match tokenizer.missing {
        Some(why) => model.with_tokenizer_missing(why),
        None => model,
    })
}

/// Which file was read, and how.
fn file_note(path: &Path, file: &GgufFile) -> String {
    format!(
        "read from {} (GGUF version {}), {MAPPED}",
        crate::core::files::locate::file_name(path),
        file.version()
    )
}

/// The token table, the position table, the block, and sentences about the block.
fn read_tables(
    file: &GgufFile,
    detected: &GgufDetected,
) -> Result<(Table, Option<Table>, EmbeddingBlock, Vec<String>)> {
    let token = file.table(&detected.token)?;
    let width = token.cols();
    let same_width = |name: &str, table: Table| -> Result<Table> {
        if table.cols() != width {
            bail!(
                "{}: the token table {} is {width} wide but {name} is {} wide; they must match \
                 to be added",
                file.path().display(),
                detected.token,
                table.cols()
            );
        }
        Ok(table)
    };
    let position = detected
        .position()
        .map(|name| same_width(name, file.table(name)?))
        .transpose()?;
    let mut sentences = Vec::new();
    let block = match (&detected.bert, detected.family) {
        (
            Some(GgufBert {
                token_types,
                norm: Some((weight, bias)),
                eps: (eps, eps_source),
            }),
            _,
        ) => {
            let token_type_row = match token_types {
                Some(name) => {
                    let table = same_width(name, file.table(name)?)?;
                    sentences.push(format!(
                        "token type: row 0 of {name} ({}×{width}), added to every token as if \
                         all were in the first sentence",
                        table.rows()
                    ));
                    table.row(0).unwrap_or_else(|| Array1::zeros(width))
                }
                None => Array1::zeros(width),
            };
            let vector = |name: &str| -> Result<Array1<f32>> {
                let table = same_width(name, file.table(name)?)?;
                match table.rows() {
                    1 => table
                        .row(0)
                        .ok_or_else(|| anyhow!("{name} could not be read")),
                    rows => bail!(
                        "{}: {name} has {rows} rows; it should be one vector",
                        file.path().display()
                    ),
                }
            };
            let norm = LayerNorm::new(vector(weight)?, vector(bias)?, *eps)?;
            sentences.push(format!(
                "LayerNorm: {weight} and {bias}, eps {eps:e} ({eps_source})"
            ));
            EmbeddingBlock::Bert {
                token_type_row,
                norm,
            }
        }
        // llama.cpp scales Gemma's token vectors in f32 (`ggml_scale` by `sqrtf(n_embd)`).
        (_, ModelFamily::Rotary) if position.is_none() && detected.is_gemma() => {
            EmbeddingBlock::gemma(width, Precision::F32)
        }
        (_, ModelFamily::Rotary | ModelFamily::Unknown) if position.is_none() => {
            EmbeddingBlock::TokenOnly
        }
        _ => EmbeddingBlock::Sum,
    };
    sentences.push(format!("the embedding block outputs {}", block.formula()));
    Ok((token, position, block, sentences))
}

/// A `tokenizer.json` named on the command line or beside the file wins; then the one the file
/// carries whole (`tokenizer.huggingface.json`: the tokenizer the model was trained with);
/// otherwise the one the `tokenizer.ggml.*` metadata describes. Either way only the names of its
/// ids are read now (a large carried one's not even those: [`carried_names_later`]): what
/// reads text is built when text is first read. When the metadata
/// describes a tokenizer embedlens cannot rebuild, the model still opens, by id. `shared` is
/// `None` where no tokenizer is wanted, only what it would be (`inspect`, which reads no text).
fn load_tokenizer(
    file: &GgufFile,
    shared: Option<&Arc<GgufFile>>,
    options: &OpenOptions,
    token: &Table,
    token_name: &str,
    label: &str,
) -> Result<LoadedTokenizer> {
    if let Some(path) = options.tokenizer.clone().or_else(|| beside(file.path())) {
        let tokenizer = TextTokenizer::deferred(&path, None)?;
        let warning = check_tokenizer_fits(&tokenizer, &path, token.rows(), token_name);
        return Ok(LoadedTokenizer {
            sentence: format!(
                "tokenizer: {} ({} ids), used instead of the file's own",
                path.display(),
                tokenizer.vocab_size()
            ),
            tokenizer: Some(tokenizer),
            warning,
            missing: None,
        });
    }
    if let Some(shared) = shared
        && let Some(later) = carried_names_later(shared, token, label)
    {
        return Ok(later);
    }
    // A tokenizer.json the file carries but embedlens cannot read is said, and the metadata's
    // own tokenizer rebuilt instead.
    let unread = match embedded_json(file)
        .map(|json| json.and_then(|json| Names::from_json(json.as_bytes())))
    {
        Some(Ok(names)) => {
            let highest = names.len().checked_sub(1);
            return Ok(LoadedTokenizer {
                sentence: format!(
                    "tokenizer: the model's own tokenizer.json, carried whole in the file \
                     ({HUGGING_FACE_JSON}, {} ids), used rather than one rebuilt from \
                     tokenizer.ggml.*",
                    names.len()
                ),
                warning: check_ids_fit(highest, file.path(), token.rows(), token_name),
                tokenizer: shared.map(|shared| embedded_tokenizer(shared, names, label)),
                missing: None,
            });
        }
        Some(Err(error)) => Some(format!(
            "the file's {HUGGING_FACE_JSON} could not be read ({error:#})"
        )),
        None => None,
    };
    Ok(match tokenizer_plan(file) {
        Ok(plan) => {
            let fits = check_ids_fit(
                plan.tokens.checked_sub(1),
                file.path(),
                token.rows(),
                token_name,
            );
            LoadedTokenizer {
                sentence: format!(
                    "tokenizer: {}, rebuilt from the file's metadata",
                    plan.summary
                ),
                warning: unread
                    .map(|unread| {
                        format!(
                            "{unread}, so the tokenizer is rebuilt from tokenizer.ggml.* instead"
                        )
                    })
                    .into_iter()
                    .chain(fits)
                    .reduce(|unread, fits| format!("{unread}; {fits}")),
                tokenizer: shared.map(|shared| lazy_tokenizer(shared, &plan, label)),
                missing: None,
            }
        }
        Err(error) => {
            let unread = unread.map_or_else(String::new, |unread| format!("{unread}, and "));
            let why = format!("{unread}the file's tokenizer could not be rebuilt: {error:#}");
            LoadedTokenizer {
                tokenizer: None,
                sentence: "no tokenizer: rows are addressed by id".to_owned(),
                warning: Some(format!("{why}; only ids can be read; {TOKENIZER_HINT}")),
                missing: Some(why),
            }
        }
    })
}

/// The tokenizer of a `tokenizer.json` the file carries for a vocabulary larger than
/// [`COUNTED_AT_ONCE`] ids, whose names are read when first needed (after the explorer's first
/// frame, on its tokenizer worker: reading 150,000 names out of the JSON takes tens of
/// milliseconds), counted meanwhile by the metadata's token array or else the table's rows.
/// A JSON that cannot be read is said then, where text would be read; the metadata's own
/// tokenizer is not rebuilt instead, as it is for a small one read now.
fn carried_names_later(
    file: &Arc<GgufFile>,
    token: &Table,
    label: &str,
) -> Option<LoadedTokenizer> {
    let Some(Ok(_)) = embedded_json(file) else {
        return None;
    };
    let count = file
        .get("tokenizer.ggml.tokens")
        .and_then(MetadataValue::items)
        .map_or(token.rows(), Items::len);
    if count <= COUNTED_AT_ONCE {
        return None;
    }
    let source = Arc::clone(file);
    let names = Names::later(count, move || {
        let json = embedded_json(&source)
            .and_then(Result::ok)
            .unwrap_or_default();
        Names::from_json(json.as_bytes()).map_err(|error| {
            anyhow!("the file's {HUGGING_FACE_JSON} could not be read ({error:#})")
        })
    });
    Some(LoadedTokenizer {
        sentence: format!(
            "tokenizer: the model's own tokenizer.json, carried whole in the file \
             ({HUGGING_FACE_JSON}), used rather than one rebuilt from tokenizer.ggml.*; the names \
             of its ids are read when first needed"
        ),
        warning: None,
        tokenizer: Some(embedded_tokenizer(file, names, label)),
        missing: None,
    })
}

/// The `tokenizer.json` beside a file, when there is one.
fn beside(path: &Path) -> Option<PathBuf> {
    // Anything there by that name is the tokenizer: a FIFO or a folder is refused when it is
    // read, as `--tokenizer` refuses it, never passed over as if absent.
    Some(path.parent()?.join("tokenizer.json")).filter(|json| json.symlink_metadata().is_ok())
}

/// Lists a GGUF file: its metadata, every tensor (file order), and what opening it would find.
pub(in crate::core::files) fn inspect_gguf(
    file: &GgufFile,
    shown: &Path,
    found: Option<String>,
) -> Inspection {
    let path = file.path();
    let mut detection: Vec<String> = found.into_iter().collect();
    detection.push(file_note(path, file));
    let mut warnings = Vec::new();
    let found = detect_gguf(file, &OpenOptions::default()).and_then(|detected| {
        let (token, _, _, block_sentences) = read_tables(file, &detected)?;
        let label = gguf_label(path);
        let options = OpenOptions::default();
        let tokenizer = load_tokenizer(file, None, &options, &token, &detected.token, &label);
        Ok((detected, block_sentences, tokenizer))
    });
    match found {
        Ok((detected, block_sentences, tokenizer)) => {
            detection.extend(detected.sentences());
            detection.extend(block_sentences);
            warnings.extend(detected.warnings());
            match tokenizer {
                Ok(tokenizer) => {
                    detection.push(tokenizer.sentence);
                    warnings.extend(tokenizer.warning);
                }
                Err(error) => detection.push(format!("no tokenizer read: {error:#}")),
            }
        }
        Err(error) => detection.push(format!("no embedding table read: {error:#}")),
    }
    let tensors = file
        .tensors()
        .iter()
        .map(|tensor| TensorSummary {
            name: tensor.name.clone(),
            dtype: tensor.ggml_type.to_string(),
            shape: tensor
                .shape()
                .iter()
                .map(|&d| usize::try_from(d).unwrap_or(usize::MAX))
                .collect(),
            file: path.to_owned(),
        })
        .collect();
    Inspection {
        source: shown.to_owned(),
        files: vec![path.to_owned()],
        metadata: file
            .metadata()
            .iter()
            .map(|(key, value)| (key.clone(), value.to_string()))
            .collect(),
        tensors,
        detection,
        warnings,
    }
}

/// A GGUF file's name without `.gguf`, to title the model.
pub(in crate::core::files) fn gguf_label(path: &Path) -> String {
    let name = crate::core::files::locate::file_name(path);
    name.strip_suffix(".gguf").unwrap_or(&name).to_owned()
}
