//! What is wrong with an `mcp.json` file or one of its entries.

use crate::text;

/// Why a file or an entry was skipped; `Display` is the text after
/// `<file>: mcpServers.<key>: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file is not JSON (the parser's message).
    #[error("{}", text::invalid_json(.0))]
    InvalidJson(String),
    /// The file's top level is not an object.
    #[error("{}", text::FILE_NOT_OBJECT)]
    FileNotObject,
    /// `mcpServers` is not an object.
    #[error("{}", text::SERVERS_NOT_OBJECT)]
    ServersNotObject,
    /// A project entry names an `auth.provider`.
    #[error("{}", text::PROJECT_AUTH_PROVIDER)]
    ProjectAuthProvider,
    /// Two names that give the same tool names (`-` and `_` are one).
    #[error("{}", text::name_clash(name, other))]
    NameClash {
        /// This entry's name.
        name: String,
        /// The name it clashes with.
        other: String,
    },
    /// A name with other characters than letters, digits, `_` and `-`.
    #[error("{}", text::invalid_server_name(.0))]
    InvalidName(String),
    /// The entry (of this name) is not an object.
    #[error("{}", text::server_not_object(.0))]
    NotObject(String),
    /// `enabled` is not a boolean.
    #[error("{}", text::ENABLED_NOT_BOOL)]
    EnabledNotBool,
    /// `description` is not a string.
    #[error("{}", text::DESCRIPTION_NOT_STRING)]
    DescriptionNotString,
    /// `timeout` is not a positive number of seconds.
    #[error("{}", text::BAD_TIMEOUT)]
    BadTimeout,
    /// An exposure that is not one of the five, at `exposure` or
    /// `toolExposure.<tool>`.
    #[error("{}", text::bad_exposure(.0))]
    BadExposure(String),
    /// `toolExposure` is not an object.
    #[error("{}", text::TOOL_EXPOSURE_NOT_MAP)]
    ToolExposureNotMap,
    /// `type: "sse"`.
    #[error("{}", text::LEGACY_SSE)]
    LegacySse,
    /// A `url` that is not http or https.
    #[error("{}", text::BAD_URL)]
    BadUrl,
    /// `args` is not an array of strings.
    #[error("{}", text::ARGS_NOT_STRINGS)]
    ArgsNotStrings,
    /// `cwd` is not a string.
    #[error("{}", text::CWD_NOT_STRING)]
    CwdNotString,
    /// `env` or `headers` (named) is not a map of strings.
    #[error("{}", text::not_string_map(.0))]
    NotStringMap(&'static str),
    /// The entry (of this name) has neither `command` nor `url`.
    #[error("{}", text::no_transport(.0))]
    NoTransport(String),
}
