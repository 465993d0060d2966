//! Command-line arguments: the explorer's options and the print subcommands.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::builder::{EnumValueParser, TypedValueParser};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::app::{DEFAULT_IDS, DEFAULT_SENTENCE, Options};
use crate::core::analysis::layer0::{Layer0, Unavailable};
use crate::core::files::hub_cache::CacheEnv;
use crate::core::files::{FileSource, OpenOptions, Opened, open};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::source::ModelSource;
use crate::core::tables::weights::{
    DEFAULT_CONTEXT_LENGTH, DEFAULT_GPT2_DIMS, DEFAULT_SEED, EmbeddingModel, as_width,
};
use crate::core::text::vocabulary::VocabKind;
use crate::theme::{Theme, ThemeChoice};

/// See what an LLM's embedding layer does: type a sentence, step through its lookups,
/// and watch position vectors pull repeated words apart.
#[derive(Debug, Parser)]
#[command(name = "embedlens", version = env!("EMBEDLENS_VERSION"), about, long_about = None, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// What the explorer opens with.
    #[command(flatten)]
    pub explorer: ExplorerArgs,

    /// A print subcommand instead of the explorer.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What the explorer opens with: the sentence, the tables, the start.
#[derive(Debug, clap::Args)]
pub struct ExplorerArgs {
    /// The sentence the explorer opens with.
    pub sentence: Option<String>,

    /// The built-in vocabulary to start with.
    #[arg(long, value_parser = vocab_parser(), default_value = "seed")]
    pub vocab: VocabKind,

    /// The position scheme the explorer starts with (`none` starts with the overlay off).
    #[arg(long, value_parser = positions_parser(), default_value = "none")]
    pub positions: PositionScheme,

    /// The seed of the PyTorch-compatible generator (`torch.manual_seed`).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,

    /// A model opened from files, explored first (`v` still reaches the built-in vocabularies).
    #[command(flatten)]
    pub model: ModelArgs,

    /// Type token ids (such as `3 1 4`) instead of text, even when there is a tokenizer.
    #[arg(long)]
    pub ids: bool,

    /// Start in the guided lesson: each point of the argument asked first, then shown.
    #[arg(long)]
    pub lesson: bool,

    /// The folder `e` writes the screen to (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub export_dir: Option<PathBuf>,

    /// Colours for the terminal's background: `auto` asks the terminal (dark when it does not
    /// answer; `export` does not ask, and is dark).
    #[arg(long, value_enum, env = "EMBEDLENS_THEME", default_value = "auto")]
    pub theme: ThemeChoice,

    /// Leave the mouse to the terminal (its own text selection) instead of clicking tokens,
    /// rows and keys; with the mouse on, Shift+drag still selects in most terminals.
    #[arg(long)]
    pub no_mouse: bool,
}

impl ExplorerArgs {
    /// The explorer's options these arguments ask for, with the model they name opened (its
    /// tables and its own layer 0, from one reading of its files).
    ///
    /// # Errors
    /// When the model's files cannot be opened.
    pub fn options(&self) -> Result<Options> {
        let (model, layer0) = match self.model.open()? {
            Some(opened) => (Some(opened.model), Some(opened.layer0)),
            None => (None, None),
        };
        let sentence = self.sentence.clone().unwrap_or_else(|| {
            // Without a tokenizer the input is ids: the default sentence's own ids.
            let reads_ids = self.ids
                || model
                    .as_ref()
                    .is_some_and(|model| model.tokenizer().is_none());
            if reads_ids {
                DEFAULT_IDS
            } else {
                DEFAULT_SENTENCE
            }
            .to_owned()
        });
        Ok(Options {
            sentence,
            vocab: self.vocab,
            positions: self.positions,
            seed: self.seed,
            // Asking the terminal waits for its answer: only the explorer asks, in `main`.
            theme: Theme::from_env(self.theme, false),
            model,
            layer0,
            gpt2_dims: as_width(self.model.dim),
            special_tokens: !self.model.no_special_tokens,
            ids: self.ids,
            lesson: self.lesson,
            export_dir: self
                .export_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(".")),
            ..Options::default()
        })
    }
}

impl Args {
    /// Parses the command line, taking options written before a subcommand as its own:
    /// `embedlens --vocab words matrix` is `embedlens matrix --vocab words`.
    #[must_use]
    pub fn parse_command_line() -> Self {
        Self::parse_from(subcommand_first(std::env::args_os()))
    }
}

/// The command line with a subcommand that follows options moved before them, so that the
/// options are read as the subcommand's; without a subcommand it is unchanged.
///
/// Only the first word that is neither an option nor an option's value can be a subcommand;
/// after `--` every word is a sentence (`embedlens -- matrix` explores the word "matrix").
pub fn subcommand_first(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    let command = Args::command();
    let takes_value = |long: &str| {
        command
            .get_arguments()
            .any(|arg| arg.get_long() == Some(long) && arg.get_action().takes_values())
    };
    let mut index = 1;
    while let Some(word) = args.get(index).and_then(|word| word.to_str()) {
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            index += if !long.contains('=') && takes_value(long) {
                2
            } else {
                1
            };
            continue;
        }
        if word.len() > 1 && word.starts_with('-') {
            index += 1;
            continue;
        }
        if index > 1 && command.find_subcommand(word).is_some() {
            let subcommand = args.remove(index);
            args.insert(1, subcommand);
        }
        break;
    }
    args
}

/// The print subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print each token's lookup: position, text, id, token vector, position vector, input vector.
    Lookup(LookupArgs),
    /// Print the weight matrix.
    Matrix(MatrixArgs),
    /// List every tensor of a model file with its dtype and shape, and say what was detected.
    Inspect(InspectArgs),
    /// Compare two sentences: the vectors they hand the model, and one attention head's outputs.
    Compare(CompareArgs),
    /// Run a model's own first attention layer: each head's weights and each token's output.
    Attention(AttentionArgs),
    /// Draw the explorer after some keys, without a terminal, and write the screen as SVG,
    /// HTML or text (from the file's extension).
    Export(ExportArgs),
    /// Print a Python script that reproduces these numbers in PyTorch (what `y` copies).
    Snippet(SnippetArgs),
    /// Print the rows of the whole table nearest one row by cosine, exactly, as the
    /// similarity pane finds them.
    Nearest(NearestArgs),
    /// Print a shell's completion script for embedlens (see the README for where it goes).
    Completions(CompletionsArgs),
}

/// Arguments of `embedlens completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell whose completion script to print.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

impl CompletionsArgs {
    /// The completion script of every subcommand and option, for this shell.
    #[must_use]
    pub fn script(&self) -> Vec<u8> {
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut Args::command(), "embedlens", &mut script);
        script
    }
}

/// Arguments of `embedlens export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The terminal's size, `COLUMNSxROWS`.
    #[arg(long, value_name = "COLUMNSxROWS", default_value = "120x40", value_parser = parse_size)]
    pub size: (u16, u16),

    /// The keys to press first, named as the help names them, separated by spaces:
    /// "Enter → → → p", "Space", "Ctrl+U".
    #[arg(long, default_value = "")]
    pub keys: String,

    /// The file to write: .svg, .html or .txt.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Replace the file if it exists (without it, an existing file is an error).
    #[arg(long)]
    pub force: bool,

    /// What the explorer opens with.
    #[command(flatten)]
    pub explorer: ExplorerArgs,
}

/// The largest terminal `export` draws, in columns and rows.
pub const MAX_EXPORT_SIZE: (u16, u16) = (1000, 500);

/// Parses `COLUMNSxROWS`, such as `100x30`.
fn parse_size(text: &str) -> Result<(u16, u16)> {
    let (columns, rows) = text
        .split_once(['x', 'X', '×'])
        .with_context(|| format!("'{text}' is not a size; write COLUMNSxROWS, such as 100x30"))?;
    let parse = |part: &str, what: &str, most: u16| -> Result<u16> {
        let value: u16 = part
            .trim()
            .parse()
            .ok()
            .filter(|value| (1..=most).contains(value))
            .with_context(|| {
                format!("'{part}' in '{text}' is not a number of {what} from 1 to {most}")
            })?;
        Ok(value)
    };
    Ok((
        parse(columns, "columns", MAX_EXPORT_SIZE.0)?,
        parse(rows, "rows", MAX_EXPORT_SIZE.1)?,
    ))
}

/// Arguments of `embedlens attention`.
#[derive(Debug, clap::Args)]
pub struct AttentionArgs {
    /// The sentence, read with the model's tokenizer.
    #[arg(required_unless_present = "ids", conflicts_with = "ids")]
    pub sentence: Option<String>,
    /// Token ids instead of a sentence, separated by commas (e.g. 101,3899,102).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub ids: Option<Vec<usize>>,
    /// The head to print, counted from 0 as PyTorch indexes them, or `all`.
    #[arg(long, default_value = "all", value_parser = parse_head)]
    pub head: HeadChoice,
    /// Feed the layer the token vectors without the model's position information (no position
    /// table for BERT and GPT-2, no rotation for RoPE models).
    #[arg(long)]
    pub no_positions: bool,
    /// How the output is written.
    #[arg(long, value_enum, default_value_t = AttentionFormat::Table)]
    pub format: AttentionFormat,
    /// Write one line on standard error with each stage's time (open, norm, projections,
    /// heads, print).
    #[arg(long)]
    pub timings: bool,
    /// The model (required: `--model PATH`).
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Arguments of `embedlens nearest`.
#[derive(Debug, clap::Args)]
pub struct NearestArgs {
    /// The word whose row the scan starts from, read with the table's tokenizer as one token.
    #[arg(required_unless_present = "id", conflicts_with = "id")]
    pub word: Option<String>,
    /// The row's id instead of a word.
    #[arg(long)]
    pub id: Option<usize>,
    /// Add this scheme's position vector (at --at) to the row first: the input vector, as the
    /// similarity pane's second list.
    #[arg(long, value_parser = positions_parser(), default_value = "none")]
    pub positions: PositionScheme,
    /// The position whose vector is added (default 0).
    #[arg(long, requires = "positions")]
    pub at: Option<usize>,
    /// How many rows to print, nearest first (1 to 1,000).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub top: u16,
    /// How the output is written.
    #[arg(long, value_enum, default_value_t = NearestFormat::Table)]
    pub format: NearestFormat,
    /// Write one line on standard error with each stage's time (open, scan, print).
    #[arg(long)]
    pub timings: bool,
    /// The table to scan.
    #[command(flatten)]
    pub table: TableArgs,
}

/// Output formats of `embedlens nearest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NearestFormat {
    /// Rank, id, token and cosine to four decimals.
    Table,
    /// JSON with each cosine as the float64 the scan computed.
    Json,
}

/// Which heads `embedlens attention` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadChoice {
    /// Every head.
    All,
    /// One head, counted from 0.
    One(usize),
}

/// Output formats of `embedlens attention`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AttentionFormat {
    /// Each head's weights as a grid, each token's output, four decimals.
    Table,
    /// JSON with every number in its shortest round-tripping form.
    Json,
}

/// Parses `--head`: `all` or a head number.
fn parse_head(text: &str) -> Result<HeadChoice> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(HeadChoice::All);
    }
    text.trim()
        .parse()
        .map(HeadChoice::One)
        .with_context(|| format!("'{text}' is not a head; write a number from 0, or all"))
}

/// Arguments of `embedlens compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The first sentence, such as "dog bites man".
    pub first: String,

    /// The second sentence, such as "man bites dog".
    pub second: String,

    /// How position information enters: added to the inputs, or inside attention.
    #[arg(long, value_parser = positions_parser(), default_value = "none")]
    pub positions: PositionScheme,

    /// Mask future tokens in attention, as decoder models do (default: every token sees all).
    #[arg(long)]
    pub causal: bool,

    /// The table to look up in.
    #[command(flatten)]
    pub table: TableArgs,

    /// How the output is written.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Arguments of `embedlens inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// A model folder, a `.safetensors` or `.gguf` file, `ollama:NAME[:TAG]`, or `ORG/NAME`
    /// from the Hugging Face cache.
    pub path: PathBuf,

    /// The revision of an `ORG/NAME` model in the Hugging Face cache: a reference such as
    /// `main`, or a commit hash.
    #[arg(long, value_name = "REF")]
    pub revision: Option<String>,
}

impl InspectArgs {
    /// The model to inspect; nothing is read yet.
    #[must_use]
    pub fn source(&self) -> FileSource {
        FileSource {
            name: self.path.clone(),
            revision: self.revision.clone(),
            cache: CacheEnv::from_process(),
        }
    }
}

/// A model opened from files, and how to read it.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ModelArgs {
    // `[:TAG]` is the help text's, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// A model folder (model.safetensors or its shards, tokenizer.json, config.json), one
    /// .safetensors or .gguf file, ollama:NAME[:TAG] for a model Ollama has pulled, or ORG/NAME
    /// for a model in the Hugging Face cache (`$HF_HUB_CACHE`, `$HF_HOME/hub` or
    /// `~/.cache/huggingface/hub`) when no such path exists.
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,

    /// The revision of an ORG/NAME model in the Hugging Face cache: a reference such as `main`
    /// (the default), or a commit hash.
    #[arg(long, value_name = "REF", requires = "model")]
    pub revision: Option<String>,

    /// The tokenizer.json to read text with (default: the one in the model folder).
    #[arg(long, value_name = "FILE", requires = "model")]
    pub tokenizer: Option<PathBuf>,

    /// The tensor to use as the token table, instead of the detected one.
    #[arg(long, value_name = "NAME", requires = "model")]
    pub token_tensor: Option<String>,

    /// The tensor to use as the learned position table, instead of the detected one.
    #[arg(long, value_name = "NAME", requires = "model")]
    pub position_tensor: Option<String>,

    /// Leave out the special tokens a model's tokenizer adds (such as `[CLS]` and `[SEP]`).
    #[arg(long)]
    pub no_special_tokens: bool,

    /// The width of the built-in gpt2 vocabulary's generated tables.
    #[arg(long, default_value_t = DEFAULT_GPT2_DIMS, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub dim: u64,
}

impl ModelArgs {
    /// The model these arguments name, if they name one (`None` without `--model`); nothing is
    /// opened yet.
    ///
    /// # Errors
    /// When an option that reads a model's files is given without `--model`.
    pub fn source(&self) -> Result<Option<FileSource>> {
        if self.model.is_none() {
            // clap lets these through beside an explicit --vocab; they would be ignored.
            let given = [
                ("--revision", self.revision.is_some()),
                ("--tokenizer", self.tokenizer.is_some()),
                ("--token-tensor", self.token_tensor.is_some()),
                ("--position-tensor", self.position_tensor.is_some()),
            ];
            if let Some((flag, _)) = given.iter().find(|(_, given)| *given) {
                bail!("{flag} reads a model's files: it goes with --model PATH");
            }
        }
        Ok(self.model.as_ref().map(|name| FileSource {
            name: name.clone(),
            revision: self.revision.clone(),
            cache: CacheEnv::from_process(),
        }))
    }

    /// Opens the model these arguments name, if they name one: its tables and its own layer
    /// 0, from one reading of its files.
    ///
    /// # Errors
    /// When `ORG/NAME` is not in the cache (the message names each place looked and how to
    /// fetch the model), an option that reads a model's files is given without `--model`, or
    /// the files are missing or unreadable (the message names the file and the problem).
    pub fn open(&self) -> Result<Option<Opened>> {
        let options = OpenOptions {
            tokenizer: self.tokenizer.clone(),
            token_tensor: self.token_tensor.clone(),
            position_tensor: self.position_tensor.clone(),
        };
        self.source()?
            .map(|source| open(&source, &options))
            .transpose()
    }
}

/// Which table to use: a built-in vocabulary, an unnamed `--shape`, or a `--model`.
#[derive(Debug, clap::Args)]
pub struct TableArgs {
    /// The built-in vocabulary.
    #[arg(long, value_parser = vocab_parser(), default_value = "seed", conflicts_with_all = ["shape", "model"])]
    pub vocab: VocabKind,

    /// A model opened from files instead of a built-in vocabulary.
    #[command(flatten)]
    pub model: ModelArgs,

    /// An unnamed PyTorch-initialised table of ROWSxDIMS instead of a vocabulary (use with --ids).
    #[arg(long, value_name = "ROWSxDIMS", value_parser = parse_shape, conflicts_with = "model")]
    pub shape: Option<(usize, usize)>,

    /// The seed of the PyTorch-compatible generator (`torch.manual_seed`).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

/// What `lookup` and `snippet` read: a sentence or ids, a table, a position scheme.
#[derive(Debug, clap::Args)]
pub struct LookupInput {
    /// The sentence to look up.
    #[arg(required_unless_present = "ids", conflicts_with = "ids")]
    pub sentence: Option<String>,

    /// Token ids to look up directly, separated by commas (e.g. 3,1,4).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub ids: Option<Vec<usize>>,

    /// The learned position table's rows for a --shape table.
    #[arg(long, default_value_t = DEFAULT_CONTEXT_LENGTH, requires = "shape")]
    pub context_length: usize,

    /// The position scheme added to each token vector (none: positions off).
    #[arg(long, value_parser = positions_parser(), default_value = "none")]
    pub positions: PositionScheme,

    /// The table to look up in.
    #[command(flatten)]
    pub table: TableArgs,
}

/// Arguments of `embedlens lookup`.
#[derive(Debug, clap::Args)]
pub struct LookupArgs {
    /// The sentence, the table and the positions.
    #[command(flatten)]
    pub input: LookupInput,

    /// How the output is written.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Arguments of `embedlens snippet`.
#[derive(Debug, clap::Args)]
pub struct SnippetArgs {
    /// The sentence, the table and the positions, as for `lookup`.
    #[command(flatten)]
    pub input: LookupInput,

    /// Attention too: the seeded head, or a model's own layer 0.
    #[arg(long)]
    pub attention: bool,

    /// The seeded head with the causal mask of decoder models.
    #[arg(long)]
    pub causal: bool,

    /// Compare mode: sentence B beside the sentence, each word's attention output in both.
    #[arg(long, value_name = "B", conflicts_with = "ids")]
    pub compare: Option<String>,

    /// The head of a model's own layer 0 the script prints, counted from 0.
    #[arg(long, default_value_t = 0)]
    pub head: usize,
}

/// Arguments of `embedlens matrix`.
#[derive(Debug, clap::Args)]
pub struct MatrixArgs {
    /// The table to print.
    #[command(flatten)]
    pub table: TableArgs,

    /// How the output is written.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Output formats of the print subcommands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns with four decimals, as PyTorch prints them.
    Table,
    /// JSON with every float32 in its shortest round-tripping form.
    Json,
    /// Comma-separated values with every float32 in its shortest round-tripping form.
    Csv,
}

/// Parses `ROWSxDIMS`, such as `6x3`.
fn parse_shape(text: &str) -> Result<(usize, usize)> {
    let (rows, dims) = text
        .split_once(['x', 'X', '×'])
        .with_context(|| format!("'{text}' is not a shape; write ROWSxDIMS, such as 6x3"))?;
    let parse = |part: &str, what: &str| {
        part.trim()
            .parse::<usize>()
            .with_context(|| format!("'{part}' is not a whole number of {what} in '{text}'"))
    };
    let shape = (parse(rows, "rows")?, parse(dims, "dimensions")?);
    if shape.0 == 0 || shape.1 == 0 {
        bail!("the shape '{text}' has no values; both numbers must be at least 1");
    }
    Ok(shape)
}

impl TableArgs {
    /// Builds the table these arguments name, or opens the model they name with its own
    /// layer 0 (`None` for a built-in or shaped table, which has none).
    ///
    /// # Errors
    /// When the shape is empty, or the model's files cannot be opened.
    pub fn open(
        &self,
        context_length: usize,
    ) -> Result<(EmbeddingModel, Option<Result<Layer0, Unavailable>>)> {
        if let Some(opened) = self.model.open()? {
            return Ok((opened.model, Some(opened.layer0)));
        }
        let source = match self.shape {
            Some((rows, dims)) => ModelSource::Shaped {
                rows,
                dims,
                context_length,
                seed: self.seed,
            },
            None => ModelSource::Builtin {
                kind: self.vocab,
                seed: self.seed,
                gpt2_dims: as_width(self.model.dim),
            },
        };
        let model = source.build()?;
        // A printout reads every row it prints, so it waits for generated tables.
        model.wait_until_ready();
        Ok((model, None))
    }
}

/// The built-in vocabularies as the command line names them (mapped to [`VocabKind`], so clap
/// stays out of the core).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum VocabArg {
    /// Six words, three dimensions: the article's own example.
    Seed,
    /// About 2,000 common English words and punctuation, eight dimensions.
    Words,
    /// The `words` vocabulary's single-token words with all-MiniLM-L6-v2's trained rows (384
    /// dimensions) and learned positions.
    Trained,
    /// GPT-2's own byte-pair encoding (50,257 ids) with untrained, PyTorch-initialised tables.
    Gpt2,
}

impl From<VocabArg> for VocabKind {
    fn from(vocab: VocabArg) -> Self {
        match vocab {
            VocabArg::Seed => Self::Seed,
            VocabArg::Words => Self::Words,
            VocabArg::Trained => Self::Trained,
            VocabArg::Gpt2 => Self::Gpt2,
        }
    }
}

/// The position schemes as the command line names them (mapped to [`PositionScheme`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum PositionsArg {
    /// No position information: the input vector is the token vector.
    None,
    /// A table with one row per position, up to the context length: learned by a trained
    /// model, randomly initialised in the seeded tables
    Learned,
    /// The original Transformer's fixed sine and cosine waves (base 10000).
    Sinusoidal,
    /// Rotary position embedding: queries and keys are rotated by a position-dependent angle
    /// inside attention; nothing is added to the input vector.
    Rope,
    /// Attention with linear biases: each score is lowered by a slope times the distance
    /// between the tokens; nothing is added to the input vector.
    Alibi,
}

impl From<PositionsArg> for PositionScheme {
    fn from(positions: PositionsArg) -> Self {
        match positions {
            PositionsArg::None => Self::None,
            PositionsArg::Learned => Self::Learned,
            PositionsArg::Sinusoidal => Self::Sinusoidal,
            PositionsArg::Rope => Self::Rope,
            PositionsArg::Alibi => Self::Alibi,
        }
    }
}

/// Reads `--vocab` into the core's [`VocabKind`].
fn vocab_parser() -> impl TypedValueParser<Value = VocabKind> {
    EnumValueParser::<VocabArg>::new().map(VocabKind::from)
}

/// Reads `--positions` into the core's [`PositionScheme`].
fn positions_parser() -> impl TypedValueParser<Value = PositionScheme> {
    EnumValueParser::<PositionsArg>::new().map(PositionScheme::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command_line(words: &[&str]) -> Vec<OsString> {
        std::iter::once("embedlens")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn options_before_a_subcommand_become_its_own() {
        let moved = |words: &[&str]| subcommand_first(command_line(words));
        assert_eq!(
            moved(&["--vocab", "words", "matrix", "--format", "csv"]),
            command_line(&["matrix", "--vocab", "words", "--format", "csv"])
        );
        assert_eq!(
            moved(&["--seed=7", "--ids", "lookup", "1"]),
            command_line(&["lookup", "--seed=7", "--ids", "1"])
        );
        // An option's value, a sentence, and anything after `--` stay where they are.
        for unchanged in [
            &["--tokenizer", "matrix"][..],
            &["the", "matrix"][..],
            &["--vocab", "words", "the matrix"][..],
            &["--vocab", "words", "--", "matrix"][..],
            &["matrix", "--vocab", "words"][..],
        ] {
            assert_eq!(moved(unchanged), command_line(unchanged), "{unchanged:?}");
        }
        let parsed = Args::parse_from(moved(&["--vocab", "words", "matrix"]));
        assert!(
            matches!(&parsed.command, Some(Command::Matrix(matrix)) if matrix.table.vocab == VocabKind::Words),
            "{parsed:?}"
        );
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("100x30").unwrap(), (100, 30));
        assert_eq!(parse_size("80×24").unwrap(), (80, 24));
        for bad in ["100", "0x30", "100x0", "ax30", "100x-1", "5000x30", ""] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shapes_parse() {
        assert_eq!(parse_shape("6x3").unwrap(), (6, 3));
        assert_eq!(parse_shape("50257X256").unwrap(), (50257, 256));
        assert!(
            parse_shape("6")
                .unwrap_err()
                .to_string()
                .contains("ROWSxDIMS")
        );
        assert!(parse_shape("ax3").is_err());
        assert!(parse_shape("0x3").is_err());
    }

    #[test]
    fn arguments_are_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }
}
