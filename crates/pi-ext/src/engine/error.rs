//! How the engine's work fails: a call ([`EngineError`]), an extension's
//! load ([`LoadError`]), and a host operation JavaScript asked for
//! ([`OpError`]). Each one's `Display` is the message pi, the model or the
//! extension's JavaScript is given.

use std::sync::Arc;
use std::time::Duration;

use crate::strip::StripError;
use crate::text;

/// Why an engine call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum EngineError {
    /// The engine is not running (stopped after a limit, or shut down).
    #[error("{}", text::stopped(.path))]
    Stopped {
        /// The extension.
        path: String,
    },
    /// JavaScript ran longer than the limit without pausing; the extension is stopped.
    #[error("{}", text::time_limit(.path, *.limit))]
    TimeLimit {
        /// The extension.
        path: String,
        /// The limit.
        limit: Duration,
    },
    /// The heap reached its limit; the extension is stopped.
    #[error("{}", text::out_of_memory(.path, *.limit))]
    OutOfMemory {
        /// The extension.
        path: String,
        /// The limit in bytes.
        limit: usize,
    },
    /// The call's abort signal fired and its JavaScript did not finish in time.
    #[error("{}", pi_tools::ToolError::Aborted)]
    Aborted,
    /// A synchronous hook got no answer in time (the extension is busy or stopped).
    #[error("{}", text::ENGINE_STOPPED)]
    NoAnswer,
    /// The JavaScript failed: its error, as one line.
    #[error("{0}")]
    Js(String),
    /// The extension did not load.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Why an extension did not load: `Failed to load extension: <why>`, or
/// the reference's words for a module without a factory.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum LoadError {
    /// Its file could not be read.
    #[error("{}", text::load_failed(&.0.to_string()))]
    Read(Arc<std::io::Error>),
    /// Its TypeScript did not parse.
    #[error("{}", text::load_failed(&.0.to_string()))]
    Strip(StripError),
    /// Its JavaScript failed to compile or evaluate, its factory threw, or
    /// the engine's glue failed to set it up: the error, as one line.
    #[error("{}", text::load_failed(.0))]
    Js(String),
    /// The module's default export is not a function.
    #[error("{}", text::not_a_factory(.path))]
    NotAFactory {
        /// The extension.
        path: String,
    },
    /// The factory's promise waits on nothing that could settle it.
    #[error("{}", text::load_failed(text::FACTORY_STALLED))]
    Stalled,
    /// The engine's runtime could not be made.
    #[error("{}", text::load_failed(&.0.to_string()))]
    Runtime(Arc<rquickjs::Error>),
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> Self {
        LoadError::Read(Arc::new(e))
    }
}

impl From<StripError> for LoadError {
    fn from(e: StripError) -> Self {
        LoadError::Strip(e)
    }
}

/// Why a host operation failed. Its `Display` is the message JavaScript's
/// promise is rejected with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OpError {
    /// The call that asked has ended.
    #[error("{}", text::CALL_ENDED)]
    CallEnded,
    /// A command handler's session operation before the session was bound.
    #[error("{}", text::NO_SESSION)]
    NoSession,
    /// An operation this host does not know.
    #[error("{}", text::unknown_host_operation(.0))]
    Unknown(String),
    /// No built-in tool has the name asked for.
    #[error(transparent)]
    UnknownTool(#[from] pi_tools::UnknownToolName),
    /// A built-in tool could not run.
    #[error(transparent)]
    Tool(#[from] pi_tools::ToolError),
    /// A built-in tool ran and failed: its result's text (as the reference's
    /// tools throw it).
    #[error("{0}")]
    ToolFailed(String),
    /// The session refused a command handler's operation: its words.
    #[error("{0}")]
    Session(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_the_host_messages() {
        let e = EngineError::TimeLimit { path: "/x.ts".into(), limit: Duration::from_secs(10) };
        assert_eq!(e.to_string(), text::time_limit("/x.ts", Duration::from_secs(10)));
        assert_eq!(EngineError::Stopped { path: "/x.ts".into() }.to_string(), text::stopped("/x.ts"));
        assert_eq!(EngineError::Aborted.to_string(), pi_tools::ToolError::Aborted.to_string());
    }
}
