//! Why a script did not start, why its runtime failed, and why one of its
//! calls was rejected; each `Display` is the text the model or the script
//! reads.

use crate::models::{ContextProblem, ModelError};
use crate::text;

/// A script that got no runtime; `Display` is its error line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AdmitError {
    /// The run was aborted while it waited.
    #[error("{}", text::aborted(text::ABORT_REASON))]
    Aborted,
    /// No runtime became free within the wait (`max`: how many there are).
    #[error("{}", text::no_worker(*max))]
    NoWorker { max: usize },
    /// The script's own `timeout_ms` passed while it waited.
    #[error("{}", text::timed_out_waiting(*ms))]
    TimedOut { ms: u64 },
}

/// The script runtime failed outside the script (shown after
/// `Script sandbox failed: `).
#[derive(Debug, thiserror::Error)]
pub(crate) enum VmError {
    /// QuickJS could not make the runtime or its context, or a value could
    /// not be restored.
    #[error("{0}")]
    Js(#[from] rquickjs::Error),
    /// The runtime code threw: the exception as QuickJS renders it (read
    /// while its context was alive).
    #[error("{message}")]
    Thrown { message: String },
    /// A promise job failed.
    #[error("{}", text::JOB_FAILED)]
    JobFailed,
}

impl VmError {
    /// A caught exception, rendered before its context goes.
    pub(crate) fn thrown(e: rquickjs::CaughtError<'_>) -> Self {
        VmError::Thrown { message: e.to_string() }
    }
}

/// Why a script's call (a tool or a host global) rejects; `Display` is the
/// message of the `Error` the script's promise rejects with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallError {
    /// The script called a tool it cannot reach.
    #[error("{}", text::unknown_callee(true, .0))]
    UnknownTool(String),
    /// The tool failed: its text, as the tool wrote it.
    #[error("{0}")]
    Tool(String),
    /// The tool failed without any text.
    #[error("{}", text::tool_failed(.0))]
    ToolFailedSilently(String),
    /// A host global refused the call.
    #[error(transparent)]
    Global(#[from] GlobalError),
}

/// Why a host global (`searchTools()`, `describeTool()`, `models.*`, ...)
/// refused a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GlobalError {
    /// `searchTools()` without a query string.
    #[error("{}", text::SEARCH_NEEDS_QUERY)]
    SearchNeedsQuery,
    /// `searchTools()` with a limit that is not a positive integer.
    #[error("{}", text::SEARCH_BAD_LIMIT)]
    SearchBadLimit,
    /// `searchTools()` with a namespace that is not a string.
    #[error("{}", text::SEARCH_BAD_NAMESPACE)]
    SearchBadNamespace,
    /// `describeTool()` without a name.
    #[error("{}", text::DESCRIBE_TOOL_NEEDS_NAME)]
    DescribeToolNeedsName,
    /// `describeNamespace()` without a name.
    #[error("{}", text::DESCRIBE_NAMESPACE_NEEDS_NAME)]
    DescribeNamespaceNeedsName,
    /// A global the runtime does not know.
    #[error("{}", text::unknown_callee(false, .0))]
    Unknown(String),
    /// A `models.*` call with an unusable type, provider or model.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A model call whose context is malformed.
    #[error("{}", context_message(call, problem, *classify, docs_path))]
    Context {
        /// `models.classify` or `models.generateImages`.
        call: String,
        /// What is wrong with it.
        problem: ContextProblem,
        /// Whether the call is `classify()` (else `generateImages()`).
        classify: bool,
        /// The script reference the message points to.
        docs_path: String,
    },
}

/// A malformed context's message: the problem, the expected shape, and the
/// section of the script reference that describes the call.
fn context_message(call: &str, problem: &ContextProblem, classify: bool, docs_path: &str) -> String {
    let (expected, section) = if classify {
        (text::CLASSIFIER_CONTEXT, text::CLASSIFY_SECTION)
    } else {
        (text::IMAGES_CONTEXT, text::IMAGES_SECTION)
    };
    text::context_problem(call, &problem.to_string(), expected, section, docs_path)
}
