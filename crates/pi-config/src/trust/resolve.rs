//! Deciding whether a project folder is trusted at start-up (requirements P4,
//! P5, P6; reference §1 item 1, §0 item 10, §8.2, §8.3).
//!
//! Precedence, first answer wins:
//! 1. the command line (`--approve` → trusted, `--no-approve` → untrusted),
//!    even in a folder that needs no trust;
//! 2. `project_trust` extension handlers, in order, only when the folder has
//!    trust-requiring resources (`remember` saves the answer for the folder);
//! 3. the nearest saved decision in `trust.json`, consulted on every start,
//!    even without resources (a saved `false` makes such a folder untrusted,
//!    and a corrupt store is an error there too);
//! 4. no trust-requiring resources → trusted;
//! 5. the global `defaultProjectTrust`: `always` → trusted, `never` →
//!    untrusted, `ask` → the prompt when there is one (interactive start-up),
//!    else untrusted.

use std::path::{Path, PathBuf};

use super::detect::{has_trust_requiring_resources, home_dir};
use super::store::{TrustError, TrustStore, canonical_dir};
use crate::text;

/// The global `defaultProjectTrust` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DefaultTrust {
    /// `"always"`: trust without asking.
    Always,
    /// `"never"`: never trust without a decision.
    Never,
    /// `"ask"` (the default): prompt in interactive mode, else untrusted.
    #[default]
    Ask,
}

impl DefaultTrust {
    /// Parse a setting value (`ask`, `always`, `never`).
    pub fn parse(s: &str) -> Option<DefaultTrust> {
        match s {
            "ask" => Some(DefaultTrust::Ask),
            "always" => Some(DefaultTrust::Always),
            "never" => Some(DefaultTrust::Never),
            _ => None,
        }
    }

    /// The setting value.
    pub fn as_str(self) -> &'static str {
        match self {
            DefaultTrust::Always => "always",
            DefaultTrust::Never => "never",
            DefaultTrust::Ask => "ask",
        }
    }
}

/// One option of the trust prompt (reference §8.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustChoice {
    /// `Trust`: save `true` for the folder.
    Trust,
    /// `Trust parent folder (<parent>)`: save `true` for the parent, delete
    /// the folder's own key.
    TrustParent,
    /// `Trust (this session only)`: nothing saved.
    TrustSession,
    /// `Do not trust`: save `false` for the folder.
    DoNotTrust,
    /// `Do not trust (this session only)`: nothing saved.
    DoNotTrustSession,
}

impl TrustChoice {
    /// Whether the choice trusts the folder.
    pub fn trusted(self) -> bool {
        matches!(self, TrustChoice::Trust | TrustChoice::TrustParent | TrustChoice::TrustSession)
    }

    /// Whether the choice saves nothing.
    pub fn is_session_only(self) -> bool {
        matches!(self, TrustChoice::TrustSession | TrustChoice::DoNotTrustSession)
    }
}

/// A prompt option: what it does and its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustOption {
    /// What choosing it does.
    pub choice: TrustChoice,
    /// The text shown.
    pub label: String,
}

/// The prompt's options for `cwd` (canonicalised), in order. The parent
/// option is left out at the file-system root; the session-only options are
/// included only when `include_session_only` (start-up, not `/trust`).
pub fn trust_options(cwd: &Path, include_session_only: bool) -> Vec<TrustOption> {
    let cwd = canonical_dir(cwd);
    let mut out = vec![TrustOption { choice: TrustChoice::Trust, label: text::OPTION_TRUST.to_string() }];
    if let Some(parent) = cwd.parent() {
        out.push(TrustOption { choice: TrustChoice::TrustParent, label: text::option_trust_parent(parent) });
    }
    if include_session_only {
        out.push(TrustOption { choice: TrustChoice::TrustSession, label: text::OPTION_TRUST_SESSION.to_string() });
    }
    out.push(TrustOption { choice: TrustChoice::DoNotTrust, label: text::OPTION_DO_NOT_TRUST.to_string() });
    if include_session_only {
        out.push(TrustOption {
            choice: TrustChoice::DoNotTrustSession,
            label: text::OPTION_DO_NOT_TRUST_SESSION.to_string(),
        });
    }
    out
}

/// Carry out a prompt choice for `cwd`: save what it saves and return whether
/// the folder is now trusted. (`TrustParent` at the root saves the root.)
pub fn apply_trust_choice(store: &TrustStore, cwd: &Path, choice: TrustChoice) -> Result<bool, TrustError> {
    let cwd = canonical_dir(cwd);
    match choice {
        TrustChoice::Trust => store.set(&cwd, Some(true))?,
        TrustChoice::DoNotTrust => store.set(&cwd, Some(false))?,
        TrustChoice::TrustParent => match cwd.parent() {
            Some(parent) => store.set_many(&[(parent.to_path_buf(), Some(true)), (cwd.clone(), None)])?,
            None => store.set(&cwd, Some(true))?,
        },
        TrustChoice::TrustSession | TrustChoice::DoNotTrustSession => {}
    }
    Ok(choice.trusted())
}

/// A `project_trust` handler's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrustAnswer {
    /// `Some(true)` "yes", `Some(false)` "no", `None` "undecided" (the next
    /// handler is asked).
    pub decision: Option<bool>,
    /// Save the decision for the folder.
    pub remember: bool,
}

/// The signature of a `project_trust` handler: given the canonical folder,
/// an answer, or an error text (reported, then the next handler is asked).
// String error: the handler is an extension's, and its error is the text of
// the exception it threw, which is only ever reported.
pub type TrustHandlerFn<'a> = Box<dyn FnMut(&Path) -> Result<TrustAnswer, String> + 'a>;

/// A `project_trust` handler of an extension loaded before trust (user-level,
/// `-e` and built-in extensions).
pub struct ProjectTrustHandler<'a> {
    /// The extension's path or name, for error messages.
    pub extension: String,
    /// The handler.
    pub decide: TrustHandlerFn<'a>,
}

/// What the start-up prompt shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustPrompt {
    /// The canonical folder.
    pub cwd: PathBuf,
    /// [`text::trust_prompt_title`].
    pub title: String,
    /// [`trust_options`] with the session-only options.
    pub options: Vec<TrustOption>,
}

/// The prompt: shows a [`TrustPrompt`] and returns the chosen option, or
/// `None` when dismissed (untrusted for this process, nothing saved).
pub type TrustPromptFn<'a> = Box<dyn FnMut(&TrustPrompt) -> Option<TrustChoice> + 'a>;

/// Everything start-up trust resolution needs. The callbacks are synchronous;
/// from async code, run [`resolve_trust`] in `spawn_blocking` and block on
/// the runtime handle inside them.
pub struct TrustInput<'a> {
    /// The session's working folder (canonicalised by [`resolve_trust`]).
    pub cwd: PathBuf,
    /// `$HOME`, for the `.agents/skills` exception.
    pub home: Option<PathBuf>,
    /// The store.
    pub store: TrustStore,
    /// `Some(true)` for `--approve`, `Some(false)` for `--no-approve`.
    pub cli_override: Option<bool>,
    /// The global `defaultProjectTrust`.
    pub default_trust: DefaultTrust,
    /// `project_trust` handlers, in load order.
    pub handlers: Vec<ProjectTrustHandler<'a>>,
    /// The prompt: only in interactive mode at start-up; `None` elsewhere
    /// (print, JSON, RPC), which makes `ask` untrusted.
    pub prompt: Option<TrustPromptFn<'a>>,
}

impl<'a> TrustInput<'a> {
    /// Input for `cwd` with `$HOME`, no override, `ask`, no handlers and no
    /// prompt.
    pub fn new(cwd: &Path, store: TrustStore) -> TrustInput<'a> {
        TrustInput {
            cwd: cwd.to_path_buf(),
            home: home_dir(),
            store,
            cli_override: None,
            default_trust: DefaultTrust::Ask,
            handlers: Vec::new(),
            prompt: None,
        }
    }
}

/// Where a trust decision came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustSource {
    /// `--approve` / `--no-approve`.
    Cli,
    /// A `project_trust` handler.
    Extension {
        /// The extension that decided.
        extension: String,
        /// Whether it asked to save the decision (it was saved).
        remembered: bool,
    },
    /// A saved decision.
    Saved {
        /// The folder it was saved for (the folder itself or an ancestor).
        path: PathBuf,
    },
    /// No trust-requiring resources: implicitly trusted.
    NoResources,
    /// `defaultProjectTrust` (`Ask` here means no prompt was available).
    Default(DefaultTrust),
    /// The start-up prompt; `None` when it was dismissed.
    Prompt(Option<TrustChoice>),
}

/// The start-up decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustOutcome {
    /// The canonical folder decided about.
    pub cwd: PathBuf,
    /// Whether project resources load.
    pub trusted: bool,
    /// Why.
    pub source: TrustSource,
    /// Whether the folder has trust-requiring resources.
    pub has_resources: bool,
    /// Failed `project_trust` handlers, one message each.
    pub warnings: Vec<String>,
}

impl TrustOutcome {
    /// The notice to show when the folder is untrusted and has resources.
    pub fn untrusted_notice(&self) -> Option<&'static str> {
        (!self.trusted && self.has_resources).then_some(text::UNTRUSTED_NOTICE)
    }
}

/// Resolve the trust of `input.cwd` (see the module documentation for the
/// order). Errors only for a trust store that cannot be read or written.
pub fn resolve_trust(input: TrustInput<'_>) -> Result<TrustOutcome, TrustError> {
    let TrustInput { cwd, home, store, cli_override, default_trust, mut handlers, prompt } = input;
    let cwd = canonical_dir(&cwd);
    let has_resources = has_trust_requiring_resources(&cwd, home.as_deref());
    let mut warnings = Vec::new();
    let done = |trusted: bool, source: TrustSource, warnings: Vec<String>| TrustOutcome {
        cwd: cwd.clone(),
        trusted,
        source,
        has_resources,
        warnings,
    };
    if let Some(t) = cli_override {
        return Ok(done(t, TrustSource::Cli, warnings));
    }
    if has_resources {
        for h in handlers.iter_mut() {
            match (h.decide)(&cwd) {
                Ok(TrustAnswer { decision: Some(d), remember }) => {
                    if remember {
                        store.set(&cwd, Some(d))?;
                    }
                    let source = TrustSource::Extension { extension: h.extension.clone(), remembered: remember };
                    return Ok(done(d, source, warnings));
                }
                Ok(_) => {}
                Err(e) => warnings.push(text::extension_trust_error(&h.extension, &e)),
            }
        }
    }
    if let Some(entry) = store.get_entry(&cwd)? {
        return Ok(done(entry.decision, TrustSource::Saved { path: entry.path }, warnings));
    }
    if !has_resources {
        return Ok(done(true, TrustSource::NoResources, warnings));
    }
    match (default_trust, prompt) {
        (DefaultTrust::Always, _) => Ok(done(true, TrustSource::Default(DefaultTrust::Always), warnings)),
        (DefaultTrust::Never, _) => Ok(done(false, TrustSource::Default(DefaultTrust::Never), warnings)),
        (DefaultTrust::Ask, None) => Ok(done(false, TrustSource::Default(DefaultTrust::Ask), warnings)),
        (DefaultTrust::Ask, Some(mut ask)) => {
            let p = TrustPrompt {
                cwd: cwd.clone(),
                title: text::trust_prompt_title(&cwd),
                options: trust_options(&cwd, true),
            };
            match ask(&p) {
                Some(choice) => {
                    let trusted = apply_trust_choice(&store, &cwd, choice)?;
                    Ok(done(trusted, TrustSource::Prompt(Some(choice)), warnings))
                }
                None => Ok(done(false, TrustSource::Prompt(None), warnings)),
            }
        }
    }
}
