//! The screen taken away: the buffer ratatui drew, written as SVG, HTML or plain text.
//!
//! [`render`] turns a buffer into each format; this file names the files and writes them
//! without overwriting. `embedlens export` (in `print`) draws the explorer after a list of
//! keys and writes it with the same functions.

pub mod render;

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use ratatui::buffer::Buffer;

pub use render::{to_html, to_svg, to_text};

/// A format the screen can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A picture: every cell on a grid.
    Svg,
    /// A page: a `<pre>` with styled spans.
    Html,
    /// The characters only.
    Text,
}

impl Format {
    /// All three, in the order `e` writes them.
    pub const ALL: [Self; 3] = [Self::Svg, Self::Html, Self::Text];

    /// The file-name extension, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Self::Svg => "svg",
            Self::Html => "html",
            Self::Text => "txt",
        }
    }

    /// The format a file name's extension asks for.
    ///
    /// # Errors
    /// When the extension is none of `.svg`, `.html` (or `.htm`) and `.txt`.
    pub fn of_path(path: &Path) -> Result<Self> {
        let extension = path
            .extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("svg") => Ok(Self::Svg),
            Some("html" | "htm") => Ok(Self::Html),
            Some("txt") => Ok(Self::Text),
            _ => bail!(
                "{} has no export format: name it .svg, .html or .txt",
                path.display()
            ),
        }
    }

    /// The buffer in this format; `title` names an HTML page.
    #[must_use]
    pub fn render(self, buffer: &Buffer, title: &str) -> String {
        match self {
            Self::Svg => to_svg(buffer),
            Self::Html => to_html(buffer, title),
            Self::Text => to_text(buffer),
        }
    }
}

/// The longest file-name stem made from a sentence, in characters.
const MAX_SLUG: usize = 40;

/// A file-name stem from a sentence: ASCII letters and digits, lower case, anything else one
/// `-`; `embedlens` when nothing is left.
#[must_use]
pub fn slug(sentence: &str) -> String {
    let mut slug = String::new();
    for c in sentence.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= MAX_SLUG {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "embedlens".to_owned()
    } else {
        slug.to_owned()
    }
}

/// How many numbered names `e` tries before it gives up.
const MAX_TRIES: usize = 1000;

/// Writes the screen in all three formats into `dir`, named after the sentence; a name taken
/// by any of the three moves all three on to `-2`, `-3`… Nothing is ever overwritten.
///
/// # Errors
/// When a file cannot be written, or every numbered name up to a thousand is taken.
pub fn write_screen(buffer: &Buffer, dir: &Path, sentence: &str) -> Result<Vec<PathBuf>> {
    let stem = slug(sentence);
    for n in 1..=MAX_TRIES {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        let paths: Vec<PathBuf> = Format::ALL
            .iter()
            .map(|format| dir.join(format!("{name}.{}", format.extension())))
            .collect();
        if paths.iter().any(|path| path.symlink_metadata().is_ok()) {
            continue;
        }
        for (format, path) in Format::ALL.iter().zip(&paths) {
            write_new(path, &format.render(buffer, sentence), false)?;
        }
        return Ok(paths);
    }
    bail!(
        "{} already holds {stem}.svg up to {stem}-{MAX_TRIES}.svg",
        dir.display()
    )
}

/// Writes `contents` to a new file in `dir` named `STEM.EXTENSION`, or `STEM-2.EXTENSION`,
/// `STEM-3.EXTENSION`… when that is taken: nothing is ever overwritten.
///
/// # Errors
/// When the file cannot be written, or every numbered name up to a thousand is taken.
pub fn write_numbered(
    dir: &Path,
    (stem, extension): (&str, &str),
    contents: &str,
) -> Result<PathBuf> {
    for n in 1..=MAX_TRIES {
        let name = if n == 1 {
            format!("{stem}.{extension}")
        } else {
            format!("{stem}-{n}.{extension}")
        };
        let path = dir.join(name);
        match write_new(&path, contents, false) {
            Ok(()) => return Ok(path),
            Err(_) if path.symlink_metadata().is_ok() => {}
            Err(error) => return Err(error),
        }
    }
    bail!(
        "{} already holds {stem}.{extension} up to {stem}-{MAX_TRIES}.{extension}",
        dir.display()
    )
}

/// Writes `contents` to a new file at `path`; an existing file is replaced only when
/// `overwrite` says so.
///
/// # Errors
/// When the file exists (without `overwrite`) or cannot be written; the message names it.
pub fn write_new(path: &Path, contents: &str, overwrite: bool) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true);
    if overwrite {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut file = options.open(path).map_err(|error| {
        if error.kind() == io::ErrorKind::AlreadyExists {
            exists_already(path)
        } else {
            anyhow::Error::new(error).context(format!("cannot write {}", path.display()))
        }
    })?;
    file.write_all(contents.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Why a file that exists is not written.
#[must_use]
pub fn exists_already(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} exists already; choose another name or pass --force to replace it",
        path.display()
    )
}

/// What the status line says after `e`: the files written (names first, so a narrow bar
/// still shows them, then the folder), or why not.
#[must_use]
pub fn written_status(written: &Result<Vec<PathBuf>>) -> String {
    match written {
        Ok(paths) => {
            let mut names: Vec<String> = Vec::new();
            for (index, path) in paths.iter().enumerate() {
                let name = if index == 0 {
                    path.file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                } else {
                    path.extension()
                        .map(|extension| format!(".{}", extension.to_string_lossy()))
                };
                names.extend(name);
            }
            let folder = paths
                .first()
                .and_then(|path| path.parent())
                .filter(|folder| *folder != Path::new(".") && *folder != Path::new(""))
                .map_or_else(String::new, |folder| format!(" in {}", folder.display()));
            format!("wrote {}{folder}", names.join(", "))
        }
        Err(error) => format!("screen not written: {error:#}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_fixtures::TempDir;
    use ratatui::layout::Rect;

    #[test]
    fn slugs_are_safe_file_names() {
        assert_eq!(slug("fox bites the fox"), "fox-bites-the-fox");
        assert_eq!(slug("  ../../etc/passwd "), "etc-passwd");
        assert_eq!(slug("Ünïcode ok?"), "n-code-ok");
        assert_eq!(slug("…"), "embedlens");
        assert_eq!(slug(&"word ".repeat(40)).len(), MAX_SLUG - 1);
    }

    #[test]
    fn formats_come_from_extensions() {
        assert_eq!(Format::of_path(Path::new("a.SVG")).unwrap(), Format::Svg);
        assert_eq!(Format::of_path(Path::new("a.html")).unwrap(), Format::Html);
        assert_eq!(Format::of_path(Path::new("a.txt")).unwrap(), Format::Text);
        let error = Format::of_path(Path::new("a.png")).unwrap_err().to_string();
        assert!(error.contains(".svg, .html or .txt"), "{error}");
    }

    #[test]
    fn writing_never_overwrites() {
        let dir = TempDir::new("export");
        let buffer = Buffer::empty(Rect::new(0, 0, 4, 2));
        let first = write_screen(&buffer, dir.path(), "fox bites").unwrap();
        assert_eq!(first[0], dir.path().join("fox-bites.svg"));
        std::fs::write(dir.path().join("fox-bites-2.txt"), "mine").unwrap();
        let again = write_screen(&buffer, dir.path(), "fox bites").unwrap();
        assert_eq!(again[2], dir.path().join("fox-bites-3.txt"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("fox-bites-2.txt")).unwrap(),
            "mine"
        );
        let status = written_status(&Ok(again));
        assert_eq!(
            status,
            format!(
                "wrote fox-bites-3.svg, .html, .txt in {}",
                dir.path().display()
            )
        );
        let here = written_status(&Ok(vec![
            PathBuf::from("./a.svg"),
            PathBuf::from("./a.txt"),
        ]));
        assert_eq!(here, "wrote a.svg, .txt");
        assert!(write_new(&dir.path().join("fox-bites.svg"), "", false).is_err());
    }
}
