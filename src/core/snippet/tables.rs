//! Where the script's tables come from: drawn as embedlens draws them, the trained model by
//! name, or a model's own files; and where the sentence's ids come from.

use super::python::{Script, list, string};
use super::{Head, Kept, View};
use crate::core::analysis::layer0::Architecture;
use crate::core::tables::block::ModelFamily;
use crate::core::tables::trained;
use crate::core::text::vocabulary::VocabKind;

/// What the tables section left for the rest of the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tables {
    /// Whether `position_table` is defined (a learned table the script can read).
    pub position_table: bool,
}

/// Where the numbers come from.
enum Source {
    /// A built-in vocabulary drawn from the seeded generator.
    Drawn { rows: usize, what: String },
    /// The built-in trained vocabulary: the published model's own rows.
    Trained,
    /// A model read from files.
    Files,
}

fn source(view: &View) -> Source {
    let model = view.model;
    if model.source().is_some() {
        return Source::Files;
    }
    let what = match view.vocab {
        Some(VocabKind::Trained) => return Source::Trained,
        Some(VocabKind::Seed) => "The seed vocabulary's tables".to_owned(),
        Some(VocabKind::Words) => "The words vocabulary's tables".to_owned(),
        Some(VocabKind::Gpt2) => {
            "The gpt2 vocabulary's tables (GPT-2's 50,257 ids, untrained)".to_owned()
        }
        None => format!("The {} table", model.label()),
    };
    Source::Drawn {
        rows: model.rows(),
        what,
    }
}

/// Imports, print settings and the tables: `token_table`, and `position_table` when there is
/// a learned one to read.
pub(super) fn write(script: &mut Script, view: &View) -> Tables {
    let model = view.model;
    let source = source(view);
    let seeded_head = matches!(view.attention, Some(Head::Seeded { .. }))
        || (view.other.is_some() && view.attention.is_none());
    if seeded_head {
        script.line("import math");
        script.blank();
    }
    script.line("import torch");
    match source {
        Source::Drawn { .. } => {}
        Source::Files if reads_tokenizer(view) => {
            script.line("from transformers import AutoModel, AutoTokenizer");
        }
        Source::Trained | Source::Files => script.line("from transformers import AutoModel"),
    }
    script.blank();
    script.line("torch.set_printoptions(precision=4, sci_mode=False)");
    script.line("torch.set_grad_enabled(False)  # nothing is trained here");
    script.blank();
    let (dims, context) = (model.dims(), model.context_length());
    match source {
        Source::Drawn { rows, what } => {
            let seed = model.seed().unwrap_or_default();
            script.comment(&format!(
                "{what} as embedlens draws them: torch.manual_seed({seed}), the token table \
                 ({rows} rows of {dims} numbers), then from the same generator the position \
                 table (context length {context}), learnable and here randomly initialised."
            ));
            script.line(format!("torch.manual_seed({seed})"));
            script.line(format!("token_table = torch.nn.Embedding({rows}, {dims})"));
            script.line(format!(
                "position_table = torch.nn.Embedding({context}, {dims})"
            ));
            Tables {
                position_table: true,
            }
        }
        Source::Trained => {
            script.comment(&format!(
                "The trained vocabulary's rows are {}'s own, float32, unchanged: the published \
                 model, downloaded once from the Hugging Face hub.",
                trained::MODEL_NAME
            ));
            script.line(format!(
                "model = AutoModel.from_pretrained({}, dtype=torch.float32)",
                string(trained::HUB_ID)
            ));
            script.line("token_table = model.get_input_embeddings()");
            script.line("position_table = model.embeddings.position_embeddings");
            Tables {
                position_table: true,
            }
        }
        Source::Files => files(script, view),
    }
}

/// A model from its own files, through `transformers`, offline.
fn files(script: &mut Script, view: &View) -> Tables {
    let model = view.model;
    let path = model
        .source()
        .map(|path| std::path::absolute(path).unwrap_or_else(|_| path.to_owned()));
    let path = path.unwrap_or_default();
    let options = "dtype=torch.float32, attn_implementation=\"eager\"";
    script.comment(
        "The model embedlens read, from its files on this computer (nothing is downloaded), in \
         float32 as embedlens widens its numbers, with eager attention so that it can return \
         its attention weights. (transformers before 4.56 names dtype= torch_dtype=.)",
    );
    let (folder, gguf) = if model.is_gguf() {
        let folder = path
            .parent()
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let file = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        script.comment("transformers reads a GGUF file with the gguf package: pip install gguf.");
        (folder, Some(file))
    } else if path
        .extension()
        .is_some_and(|extension| extension == "safetensors")
    {
        script.comment(
            "transformers reads the folder the file is in: its config.json must be beside it.",
        );
        (
            path.parent()
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned(),
            None,
        )
    } else {
        (path.to_string_lossy().into_owned(), None)
    };
    script.line(format!("path = {}", string(&folder)));
    let gguf_option = match &gguf {
        Some(file) => format!(", gguf_file={}", string(file)),
        None => ", local_files_only=True".to_owned(),
    };
    script.line(format!(
        "model = AutoModel.from_pretrained(path{gguf_option}, {options})"
    ));
    script.line("model.eval()");
    if reads_tokenizer(view) {
        script.line(format!(
            "tokenizer = AutoTokenizer.from_pretrained(path{gguf_option})"
        ));
    }
    script.line("token_table = model.get_input_embeddings()");
    let position_table = match model.family() {
        ModelFamily::Bert if model.position_table().is_some() => {
            Some("model.embeddings.position_embeddings")
        }
        ModelFamily::Gpt2 if model.position_table().is_some() => Some("model.wpe"),
        _ => None,
    };
    match position_table {
        Some(table) => script.line(format!("position_table = {table}")),
        None => script.comment(
            "No learned position table: this model brings position in inside attention, or \
             nowhere.",
        ),
    }
    if let Some(note) = model.position_rows_note() {
        script.comment(&note);
    }
    Tables {
        position_table: position_table.is_some(),
    }
}

/// Whether the script reads the sentence with the model's own tokenizer (to check the ids).
fn reads_tokenizer(view: &View) -> bool {
    view.model.tokenizer().is_some() && !view.by_ids
}

/// The ids as the script writes them: the trained vocabulary's rows mapped to the model's ids.
pub(super) fn row_ids(view: &View, kept: &Kept) -> String {
    if view.vocab == Some(VocabKind::Trained) && view.model.source().is_none() {
        let model_ids = trained::tables().model_ids;
        let ids: Vec<usize> = kept
            .ids
            .iter()
            .map(|&row| model_ids.get(row).copied().unwrap_or(row))
            .collect();
        return list(&ids);
    }
    list(&kept.ids)
}

/// Where the ids come from, in a comment (and for a model, its tokenizer's own check).
pub(super) fn ids_comment(script: &mut Script, view: &View, text: &str, kept: &Kept, suffix: &str) {
    let sentence = string(text);
    match (source(view), view.vocab) {
        (Source::Drawn { .. }, Some(VocabKind::Seed)) => script.comment(&format!(
            "{sentence} read with embedlens's seed word list (0 the, 1 quick, 2 fox, 3 dog, \
             4 bites, 5 man): lower-cased, punctuation split off."
        )),
        (Source::Drawn { .. }, Some(VocabKind::Words)) => script.comment(&format!(
            "{sentence} read with embedlens's words list: lower-cased, punctuation split off, \
             a word it lacks read as <|unk|>, the last row."
        )),
        (Source::Drawn { .. }, Some(VocabKind::Gpt2)) => script.comment(&format!(
            "GPT-2's own byte pairs: tiktoken.get_encoding(\"r50k_base\").encode({sentence}) \
             gives these ids (pip install tiktoken to check)."
        )),
        (Source::Trained, _) => {
            script.comment(&format!(
                "{sentence} read with embedlens's words list, each word one token of the \
                 model's uncased tokenizer: embedlens's rows {} are the model's ids below.",
                list(&kept.ids)
            ));
        }
        (Source::Files, _) => {
            script.line(format!("sentence{suffix} = {sentence}"));
            match (&kept.all_ids, view.model.tokenizer()) {
                (Some(all), Some(_)) => {
                    let special = if suffix.is_empty() {
                        view.special_tokens
                    } else {
                        true
                    };
                    let special = if special { "True" } else { "False" };
                    script.comment("The ids embedlens read, and the model's tokenizer agrees:");
                    script.line(format!(
                        "assert tokenizer(sentence{suffix}, add_special_tokens={special})[\"input_ids\"] \
                         == {}",
                        list(all)
                    ));
                }
                _ => script.comment("The ids embedlens read."),
            }
        }
        (Source::Drawn { .. }, _) => script.comment("The ids as embedlens read them."),
    }
}

/// Where a model's layer 0 hands on every head's output, for a hook to keep it.
pub(super) fn layer0_hook(architecture: Architecture, model_type: Option<&str>) -> String {
    match architecture {
        Architecture::Bert => "model.encoder.layer[0].attention.self.register_forward_hook(\
             lambda module, args, output: kept.update(outputs=output[0]))"
            .to_owned(),
        Architecture::Gpt2 => "model.h[0].attn.c_proj.register_forward_pre_hook(\
             lambda module, args: kept.update(outputs=args[0]))"
            .to_owned(),
        Architecture::Rotary => {
            let projection = if model_type == Some("phi") {
                "dense"
            } else {
                "o_proj"
            };
            format!(
                "model.layers[0].self_attn.{projection}.register_forward_pre_hook(\
                 lambda module, args: kept.update(outputs=args[0]))"
            )
        }
    }
}
