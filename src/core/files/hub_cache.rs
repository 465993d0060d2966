//! Models in the local Hugging Face hub cache, the folder `transformers` and
//! `huggingface-cli download` fill: `--model ORG/NAME` without a network.
//!
//! The cache keeps each repository as `models--ORG--NAME/`, with `refs/<ref>` files holding
//! commit hashes and `snapshots/<hash>/` folders whose files are links into `blobs/`. Opening
//! a snapshot's files follows those links, so the snapshot folder is all a caller needs.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::core::files::access::read_text;
use crate::core::text::printable::printable;

/// The reference a bare `--model ORG/NAME` reads, as `from_pretrained` does.
pub const DEFAULT_REVISION: &str = "main";

/// The most bytes read of a reference file (`refs/main`), which holds one 40-digit hash.
const MAX_REFERENCE_BYTES: u64 = 4096;

/// A model's name on the hub: `ORG/NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoId {
    /// The user or organisation.
    pub owner: String,
    /// The model's name.
    pub name: String,
}

impl RepoId {
    /// Reads `ORG/NAME`: two parts of letters, digits, `-`, `_` and `.`, neither starting with
    /// `.` or `-`; `None` for anything else (a path of more parts, a bare name, `..`).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let (owner, name) = text.split_once('/')?;
        let valid = |part: &str| {
            !part.is_empty()
                && part.len() <= 96
                && !part.starts_with(['.', '-'])
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        (valid(owner) && valid(name)).then(|| Self {
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }

    /// The repository's folder name in the cache: `models--ORG--NAME`.
    #[must_use]
    pub fn folder_name(&self) -> String {
        format!("models--{}--{}", self.owner, self.name)
    }
}

impl fmt::Display for RepoId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// The environment variables that choose the cache folder, as `huggingface_hub` reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheEnv {
    /// `HF_HUB_CACHE`: the hub cache itself.
    pub hf_hub_cache: Option<OsString>,
    /// `HF_HOME`: the cache is its `hub` folder.
    pub hf_home: Option<OsString>,
    /// `XDG_CACHE_HOME`: without `HF_HOME`, the cache is its `huggingface/hub` folder.
    pub xdg_cache_home: Option<OsString>,
    /// `HOME`: otherwise the cache is `~/.cache/huggingface/hub`.
    pub home: Option<OsString>,
}

impl CacheEnv {
    /// The variables as this process sees them (empty values count as unset).
    #[must_use]
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        Self {
            hf_hub_cache: var("HF_HUB_CACHE"),
            hf_home: var("HF_HOME"),
            xdg_cache_home: var("XDG_CACHE_HOME"),
            home: var("HOME"),
        }
    }

    /// The cache folder and which setting chose it, or `None` when not even `HOME` is set.
    #[must_use]
    pub fn cache_root(&self) -> Option<(PathBuf, CacheRoot)> {
        if let Some(path) = &self.hf_hub_cache {
            return Some((PathBuf::from(path), CacheRoot::HubCacheVariable));
        }
        if let Some(path) = &self.hf_home {
            return Some((Path::new(path).join("hub"), CacheRoot::HomeVariable));
        }
        if let Some(path) = &self.xdg_cache_home {
            return Some((
                Path::new(path).join("huggingface").join("hub"),
                CacheRoot::XdgCacheVariable,
            ));
        }
        let home = self.home.as_ref()?;
        Some((
            Path::new(home)
                .join(".cache")
                .join("huggingface")
                .join("hub"),
            CacheRoot::Default,
        ))
    }
}

/// Which setting chose the cache folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheRoot {
    /// `HF_HUB_CACHE`.
    HubCacheVariable,
    /// `HF_HOME/hub`.
    HomeVariable,
    /// `XDG_CACHE_HOME/huggingface/hub`.
    XdgCacheVariable,
    /// `~/.cache/huggingface/hub`, with none of those set.
    Default,
}

impl CacheRoot {
    /// Where the folder came from, for messages.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Self::HubCacheVariable => "HF_HUB_CACHE",
            Self::HomeVariable => "HF_HOME/hub",
            Self::XdgCacheVariable => "XDG_CACHE_HOME/huggingface/hub (HF_HOME is unset)",
            Self::Default => "the default; HF_HUB_CACHE and HF_HOME are unset",
        }
    }
}

/// A model found in the cache: the snapshot folder to open and the revision it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// `…/models--ORG--NAME/snapshots/<hash>`.
    pub folder: PathBuf,
    /// The commit hash of the snapshot.
    pub commit: String,
    /// The reference asked for (`main` unless `--revision` named another).
    pub revision: String,
}

/// Why a model is not in the cache: each place looked, as values; [`CacheMiss::message`]
/// makes the sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheMiss {
    /// The model asked for.
    pub repo: RepoId,
    /// The revision asked for.
    pub revision: String,
    /// The cache folder and which setting chose it; `None` when no setting names one.
    pub root: Option<(PathBuf, CacheRoot)>,
    /// What was missing there.
    pub missing: Missing,
}

/// The first thing a cache lookup did not find.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// No cache folder could be named (no `HF_HUB_CACHE`, `HF_HOME`, `XDG_CACHE_HOME` or `HOME`).
    CacheRoot,
    /// The cache folder itself.
    CacheFolder(PathBuf),
    /// The repository's folder in the cache.
    RepoFolder(PathBuf),
    /// Neither `refs/<revision>` nor a snapshot named by it as a commit hash.
    Revision {
        /// The `refs/<revision>` file looked for.
        reference: PathBuf,
        /// The snapshot folder looked for, taking the revision as a commit hash.
        snapshot: PathBuf,
    },
    /// The reference names a commit whose snapshot folder is not there.
    Snapshot {
        /// The reference file read.
        reference: PathBuf,
        /// The snapshot folder it points at.
        snapshot: PathBuf,
    },
}

impl CacheMiss {
    /// What was looked for, where, and how to fetch the model.
    #[must_use]
    pub fn message(&self) -> String {
        let looked = match (&self.missing, &self.root) {
            (Missing::CacheRoot, _) | (_, None) => {
                "no Hugging Face cache folder could be named: HF_HUB_CACHE, HF_HOME, \
                 XDG_CACHE_HOME and HOME are all unset"
                    .to_owned()
            }
            (Missing::CacheFolder(folder), Some((_, chosen))) => format!(
                "the Hugging Face cache folder {} ({}) does not exist",
                folder.display(),
                chosen.describe()
            ),
            (Missing::RepoFolder(folder), Some((root, chosen))) => format!(
                "the Hugging Face cache at {} ({}) has no {}",
                root.display(),
                chosen.describe(),
                folder.file_name().map_or_else(
                    || folder.display().to_string(),
                    |n| n.to_string_lossy().into()
                ),
            ),
            (
                Missing::Revision {
                    reference,
                    snapshot,
                },
                _,
            ) => format!(
                "revision {} is in the cache neither as a reference ({}) nor as a snapshot ({})",
                printable(&self.revision),
                printable(&reference.display().to_string()),
                printable(&snapshot.display().to_string())
            ),
            (
                Missing::Snapshot {
                    reference,
                    snapshot,
                },
                _,
            ) => format!(
                "{} points at a snapshot that is not there ({})",
                reference.display(),
                snapshot.display()
            ),
        };
        let revision = if self.revision == DEFAULT_REVISION {
            String::new()
        } else {
            format!(" --revision {}", printable(&self.revision))
        };
        format!(
            "no file or folder {repo} here, and {looked}. To fetch the model once (this needs \
             the network; embedlens never uses it): huggingface-cli download {repo}{revision}",
            repo = self.repo,
        )
    }
}

/// Finds `repo` at `revision` (a reference such as `main`, or a commit hash) in the cache the
/// environment names.
///
/// # Errors
/// A [`CacheMiss`] saying what was not found, and where.
pub fn locate(
    repo: &RepoId,
    revision: Option<&str>,
    env: &CacheEnv,
) -> Result<Snapshot, Box<CacheMiss>> {
    let revision = revision.unwrap_or(DEFAULT_REVISION).to_owned();
    let root = env.cache_root();
    let miss = |missing| {
        Box::new(CacheMiss {
            repo: repo.clone(),
            revision: revision.clone(),
            root: root.clone(),
            missing,
        })
    };
    let Some((root_folder, _)) = &root else {
        return Err(miss(Missing::CacheRoot));
    };
    if !root_folder.is_dir() {
        return Err(miss(Missing::CacheFolder(root_folder.clone())));
    }
    let repo_folder = root_folder.join(repo.folder_name());
    if !repo_folder.is_dir() {
        return Err(miss(Missing::RepoFolder(repo_folder)));
    }
    let snapshots = repo_folder.join("snapshots");
    // A reference may hold slashes (refs/pr/1), which name folders under refs/, never `..`.
    let reference = (!revision
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == ".."))
    .then(|| repo_folder.join("refs").join(&revision));
    if let Some(reference) = &reference
        // A reference is one commit hash; a FIFO or a huge file there must not hang or fill
        // memory, so it is read as a small regular file or not at all.
        && let Ok(text) = read_text(reference, MAX_REFERENCE_BYTES, "a reference file")
    {
        let commit = text.trim().to_owned();
        let snapshot = snapshots.join(&commit);
        if commit.is_empty() || commit.contains(['/', '\\']) || !snapshot.is_dir() {
            return Err(miss(Missing::Snapshot {
                reference: reference.clone(),
                snapshot,
            }));
        }
        return Ok(Snapshot {
            folder: snapshot,
            commit,
            revision,
        });
    }
    let is_hash = revision.len() == 40 && revision.chars().all(|c| c.is_ascii_hexdigit());
    let snapshot = snapshots.join(&revision);
    if is_hash && snapshot.is_dir() {
        return Ok(Snapshot {
            folder: snapshot,
            commit: revision.clone(),
            revision,
        });
    }
    Err(miss(Missing::Revision {
        reference: reference.unwrap_or_else(|| repo_folder.join("refs")),
        snapshot,
    }))
}

/// The path a `--model` argument stands for: itself when it exists (or is not `ORG/NAME`), else
/// the snapshot folder of `ORG/NAME` at `revision` in the cache the environment names.
///
/// # Errors
/// When `ORG/NAME` is not in the cache (the message names each place looked and how to fetch
/// it), or a revision is given for a path that is not `ORG/NAME` from the cache.
pub fn resolve_model_path(
    path: &Path,
    revision: Option<&str>,
    env: &CacheEnv,
) -> anyhow::Result<PathBuf> {
    let repo = path.to_str().and_then(RepoId::parse);
    match repo {
        Some(repo) if !path.exists() => {
            let folder = locate(&repo, revision, env)
                .map(|snapshot| snapshot.folder)
                .map_err(|miss| anyhow::anyhow!(miss.message()))?;
            check_snapshot_links(&folder)?;
            Ok(folder)
        }
        _ => {
            if let Some(revision) = revision {
                anyhow::bail!(
                    "--revision {} picks a revision of a model in the Hugging Face cache \
                     (--model ORG/NAME), but {} is a path on disk",
                    printable(revision),
                    path.display()
                );
            }
            check_snapshot_links(path)?;
            Ok(path.to_owned())
        }
    }
}

/// Refuses a Hugging Face cache snapshot (the folder, or a file in it) any of whose links leads
/// outside its repository's cache folder (`models--ORG--NAME`), where the cache keeps the
/// blobs those links are meant to reach: such a link reads a file the user never named. A path
/// outside a snapshot passes as it is.
///
/// # Errors
/// Naming the first link that leaves the cache, and where it leads.
pub fn check_snapshot_links(path: &Path) -> anyhow::Result<()> {
    let folder = if path.is_dir() {
        path
    } else {
        match path.parent() {
            Some(parent) => parent,
            None => return Ok(()),
        }
    };
    let Some(repository) = folder
        .parent()
        .filter(|snapshots| {
            snapshots
                .file_name()
                .is_some_and(|name| name == "snapshots")
        })
        .and_then(Path::parent)
    else {
        return Ok(());
    };
    let Ok(repository) = repository.canonicalize() else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(());
    };
    let mut links: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_symlink()))
        .map(|entry| entry.path())
        .collect();
    links.sort();
    for link in links {
        // A broken link is reported when the file is read; only where a link leads is judged.
        if let Ok(target) = link.canonicalize()
            && !target.starts_with(&repository)
        {
            anyhow::bail!(
                "{}: a link in a Hugging Face cache snapshot that leads to {}, outside the \
                 cache's folder for this model ({}); a snapshot's links must lead to its blobs, \
                 so the model is refused",
                link.display(),
                target.display(),
                repository.display()
            );
        }
    }
    Ok(())
}

/// A snapshot of the cache that a path lies in: the model and its commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedSnapshot {
    /// The model, from its folder's name.
    pub repo: RepoId,
    /// The snapshot's commit hash.
    pub commit: String,
}

impl CachedSnapshot {
    /// Recognises `…/models--ORG--NAME/snapshots/<commit>` and anything inside it, so a model
    /// opened from the cache is named as the hub names it, however it was given.
    #[must_use]
    pub fn of(path: &Path) -> Option<Self> {
        let parts: Vec<&str> = path
            .components()
            .map(|part| part.as_os_str().to_str())
            .collect::<Option<_>>()?;
        let at = parts.iter().rposition(|&part| part == "snapshots")?;
        let (owner, name) = parts
            .get(at.checked_sub(1)?)?
            .strip_prefix("models--")?
            .split_once("--")?;
        let commit = (*parts.get(at + 1)?).to_owned();
        let repo = RepoId::parse(&format!("{owner}/{name}"))?;
        Some(Self { repo, commit })
    }

    /// Where the files came from, for the detection list.
    #[must_use]
    pub fn sentence(&self) -> String {
        let short: String = self.commit.chars().take(12).collect();
        format!(
            "from the Hugging Face cache: {} at commit {short} (its snapshot's links lead to the \
             cached blobs)",
            self.repo
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::fs;

    const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
    const OTHER: &str = "fedcba9876543210fedcba9876543210fedcba98";

    /// A cache as `huggingface-cli download` leaves it: refs, snapshots of links, blobs.
    fn fake_cache() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("hub").join("models--org--tiny");
        for commit in [COMMIT, OTHER] {
            fs::create_dir_all(repo.join("snapshots").join(commit)).unwrap();
        }
        fs::create_dir_all(repo.join("blobs")).unwrap();
        fs::create_dir_all(repo.join("refs").join("pr")).unwrap();
        fs::write(repo.join("refs").join("main"), COMMIT).unwrap();
        fs::write(repo.join("refs").join("pr").join("1"), format!("{OTHER}\n")).unwrap();
        fs::write(repo.join("blobs").join("abc"), "{}").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            "../../blobs/abc",
            repo.join("snapshots").join(COMMIT).join("config.json"),
        )
        .unwrap();
        dir
    }

    fn env_with_hub(dir: &Path) -> CacheEnv {
        CacheEnv {
            hf_hub_cache: Some(dir.join("hub").into()),
            ..CacheEnv::default()
        }
    }

    fn repo() -> RepoId {
        RepoId::parse("org/tiny").unwrap()
    }

    #[test]
    fn repo_ids_are_two_plain_parts() {
        assert_eq!(repo().folder_name(), "models--org--tiny");
        assert_eq!(
            RepoId::parse("sentence-transformers/all-MiniLM-L6-v2")
                .unwrap()
                .folder_name(),
            "models--sentence-transformers--all-MiniLM-L6-v2"
        );
        for bad in [
            "tiny", "a/b/c", "../x", "a/..", "/abs", "a/", "a b/c", "./m",
        ] {
            assert_eq!(RepoId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_cache_root_follows_the_variables_in_huggingface_hubs_order() {
        let mut env = CacheEnv {
            home: Some("/home/u".into()),
            ..CacheEnv::default()
        };
        let root = |env: &CacheEnv| env.cache_root();
        assert_eq!(
            root(&env),
            Some((
                PathBuf::from("/home/u/.cache/huggingface/hub"),
                CacheRoot::Default
            ))
        );
        env.xdg_cache_home = Some("/xdg".into());
        assert_eq!(
            root(&env),
            Some((
                PathBuf::from("/xdg/huggingface/hub"),
                CacheRoot::XdgCacheVariable
            ))
        );
        env.hf_home = Some("/hf".into());
        assert_eq!(
            root(&env),
            Some((PathBuf::from("/hf/hub"), CacheRoot::HomeVariable))
        );
        env.hf_hub_cache = Some("/cache".into());
        assert_eq!(
            root(&env),
            Some((PathBuf::from("/cache"), CacheRoot::HubCacheVariable))
        );
        assert_eq!(CacheEnv::default().cache_root(), None);
    }

    #[test]
    fn main_is_read_through_its_reference_and_links_reach_the_blobs() {
        let dir = fake_cache();
        let snapshot = locate(&repo(), None, &env_with_hub(dir.path())).unwrap();
        assert_eq!(snapshot.commit, COMMIT);
        assert_eq!(snapshot.revision, "main");
        assert!(snapshot.folder.ends_with(format!("snapshots/{COMMIT}")));
        #[cfg(unix)]
        assert_eq!(
            fs::read_to_string(snapshot.folder.join("config.json")).unwrap(),
            "{}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_snapshot_link_that_leaves_the_cache_refuses_the_model() {
        let cache = fake_cache();
        let env = env_with_hub(cache.path());
        let snapshot = cache
            .path()
            .join("hub/models--org--tiny/snapshots")
            .join(COMMIT);
        assert!(resolve_model_path(Path::new("org/tiny"), None, &env).is_ok());
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.json"), "{}").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.json"),
            snapshot.join("tokenizer.json"),
        )
        .unwrap();
        for given in [Path::new("org/tiny"), snapshot.as_path()] {
            let error = resolve_model_path(given, None, &env)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(
                    "tokenizer.json: a link in a Hugging Face cache snapshot that leads to"
                ) && error.contains("outside the cache's folder for this model"),
                "{error}"
            );
        }
    }

    #[test]
    fn a_revision_is_a_reference_or_a_commit_hash() {
        let dir = fake_cache();
        let env = env_with_hub(dir.path());
        let by_ref = locate(&repo(), Some("pr/1"), &env).unwrap();
        assert_eq!(
            (by_ref.commit.as_str(), by_ref.revision.as_str()),
            (OTHER, "pr/1")
        );
        let by_hash = locate(&repo(), Some(OTHER), &env).unwrap();
        assert_eq!(by_hash.commit, OTHER);
        let miss = locate(&repo(), Some("v2"), &env).unwrap_err();
        assert!(matches!(miss.missing, Missing::Revision { .. }));
        let message = miss.message();
        assert!(message.contains("refs/v2"), "{message}");
        assert!(
            message.contains("huggingface-cli download org/tiny --revision v2"),
            "{message}"
        );
        let escape = locate(&repo(), Some("../../x"), &env).unwrap_err();
        assert!(matches!(escape.missing, Missing::Revision { .. }));
    }

    #[test]
    fn a_reference_to_a_missing_snapshot_says_so() {
        let dir = fake_cache();
        let refs = dir.path().join("hub/models--org--tiny/refs");
        fs::write(
            refs.join("main"),
            "1111111111111111111111111111111111111111",
        )
        .unwrap();
        let miss = locate(&repo(), None, &env_with_hub(dir.path())).unwrap_err();
        assert!(matches!(miss.missing, Missing::Snapshot { .. }));
        assert!(
            miss.message()
                .contains("points at a snapshot that is not there")
        );
    }

    #[test]
    fn a_model_argument_is_a_path_first_then_the_cache() {
        let dir = fake_cache();
        let env = env_with_hub(dir.path());
        let resolved = resolve_model_path(Path::new("org/tiny"), None, &env).unwrap();
        assert!(resolved.ends_with(format!("snapshots/{COMMIT}")));
        let at_pr = resolve_model_path(Path::new("org/tiny"), Some("pr/1"), &env).unwrap();
        assert!(at_pr.ends_with(format!("snapshots/{OTHER}")));
        // A path that exists is taken as it is, even when it looks like ORG/NAME.
        let local = dir.path().join("hub");
        assert_eq!(resolve_model_path(&local, None, &env).unwrap(), local);
        let error = resolve_model_path(&local, Some("main"), &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("is a path on disk"), "{error}");
        let missing = resolve_model_path(Path::new("no/such"), None, &env)
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("huggingface-cli download no/such"),
            "{missing}"
        );
        let odd = Path::new("not-a-repo.safetensors");
        assert_eq!(resolve_model_path(odd, None, &env).unwrap(), odd);
    }

    #[cfg(unix)]
    #[test]
    fn a_reference_that_is_a_fifo_or_huge_is_not_read() {
        let dir = fake_cache();
        let refs = dir.path().join("hub/models--org--tiny/refs");
        fs::remove_file(refs.join("main")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(refs.join("main"))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        // Opening a FIFO for reading would wait for a writer forever; it is refused at once.
        let (sent, answer) = std::sync::mpsc::channel();
        let env = env_with_hub(dir.path());
        std::thread::spawn(move || {
            let _ = sent.send(locate(&repo(), None, &env).is_err());
        });
        let refused = answer
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a FIFO reference does not hang the lookup");
        assert!(refused);
        fs::write(refs.join("pr").join("1"), "x".repeat(1 << 20)).unwrap();
        assert!(locate(&repo(), Some("pr/1"), &env_with_hub(dir.path())).is_err());
    }

    #[test]
    fn a_snapshot_path_names_its_model_and_commit() {
        let folder = format!("/c/hub/models--org--tiny/snapshots/{COMMIT}");
        let expected = CachedSnapshot {
            repo: repo(),
            commit: COMMIT.to_owned(),
        };
        assert_eq!(
            CachedSnapshot::of(Path::new(&folder)),
            Some(expected.clone())
        );
        let file = format!("{folder}/model.safetensors");
        assert_eq!(CachedSnapshot::of(Path::new(&file)), Some(expected.clone()));
        assert!(
            expected
                .sentence()
                .contains("org/tiny at commit 0123456789ab")
        );
        assert_eq!(
            CachedSnapshot::of(Path::new("/models/tiny/snapshots")),
            None
        );
        assert_eq!(
            CachedSnapshot::of(Path::new("/a/models--x/snapshots/1")),
            None
        );
    }

    #[test]
    fn a_missing_model_names_each_place_looked_and_how_to_fetch_it() {
        let dir = fake_cache();
        let other = RepoId::parse("someone/else").unwrap();
        let message = locate(&other, None, &env_with_hub(dir.path()))
            .unwrap_err()
            .message();
        assert!(
            message.contains("no file or folder someone/else here"),
            "{message}"
        );
        assert!(
            message.contains(&dir.path().join("hub").display().to_string()),
            "{message}"
        );
        assert!(message.contains("HF_HUB_CACHE"), "{message}");
        assert!(message.contains("models--someone--else"), "{message}");
        assert!(
            message.ends_with("huggingface-cli download someone/else"),
            "{message}"
        );

        let home = CacheEnv {
            home: Some(dir.path().join("nobody").into()),
            ..CacheEnv::default()
        };
        let message = locate(&other, None, &home).unwrap_err().message();
        assert!(message.contains(".cache/huggingface/hub"), "{message}");
        assert!(message.contains("does not exist"), "{message}");
        assert!(
            message.contains("HF_HUB_CACHE and HF_HOME are unset"),
            "{message}"
        );

        let nowhere = locate(&other, None, &CacheEnv::default())
            .unwrap_err()
            .message();
        assert!(nowhere.contains("are all unset"), "{nowhere}");
    }
}
