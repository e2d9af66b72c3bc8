//! pi's files and what they mean: the agent dir (`~/.pi/agent` or
//! `PI_CODING_AGENT_DIR`), `models.json` (custom providers and models, with
//! `$NAME`/`!command` value resolution), and the context files (`AGENTS.md`,
//! `CLAUDE.md`) that go into the system prompt, the saved credentials
//! ([`auth`], `auth.json`), the settings layers
//! ([`settings`]) and project trust ([`trust`]).
//!
//! This crate depends on no other pi crate; it reads files and returns plain
//! data, and every failure is a typed [`ConfigError`] whose `Display` reads as a
//! sentence a user can act on.
#![deny(missing_docs)]

mod agent_dir;
pub mod auth;
pub mod catalog;
mod compat;
mod context_files;
pub mod env_auth;
mod error;
pub mod files;
pub mod llama;
mod models;
mod models_file;
pub mod packages;
pub mod resources;
pub mod settings;
pub mod text;
pub mod tool_selection;
pub mod trust;
mod value;

pub use agent_dir::{AGENT_DIR_ENV, agent_dir, expand_tilde};
pub use auth::{AuthError, AuthStore, Credential};
pub use catalog::{CatalogModel, CatalogProvider, builtin_provider, builtin_providers, default_models};
pub use compat::{CompatLayer, MaxTokensField, ModelCompat};
pub use context_files::{CONTEXT_FILE_NAMES, ContextFile, load_context_files};
pub use error::{ConfigError, ResourceError};
pub use models::{ModelCost, ModelEntry, ThinkingLevelMap, UNKNOWN_MODEL, builtin_models, load_models};
pub use models_file::ModelsFile;
pub use settings::{Diagnostic, RetryConfig, Settings, SettingsError};
pub use trust::{DefaultTrust, TrustError, TrustOutcome, TrustStore, resolve_trust};
pub use value::resolve_value;
