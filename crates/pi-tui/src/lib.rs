//! The interactive terminal UI of `pi`: the prompt editor, the transcript
//! (streaming markdown, each tool rendered for what it is), the footer,
//! dialogs, themes and the hosting of extension components, drawn with
//! ratatui in fullscreen (alternate screen) or regular (scrollback) mode.
//!
//! `pi-tui` knows the agent only through `pi-agent`'s events and a small set
//! of commands ([`host`]); the `pi` binary wires it to the agent.
#![deny(missing_docs)]

pub mod app;
pub mod commands;
pub mod complete;
pub mod dialog;
pub mod editor;
mod error;
pub mod footer;
pub mod highlight;
pub mod host;
pub mod keys;
pub mod lines;
pub mod markdown;
mod markdown_table;
mod runner;
pub mod sanitize;
pub mod screen;
pub mod standalone;
mod terminal;
pub mod text;
pub mod theme;
pub mod transcript;

pub use app::{App, Options, ScreenMode};
pub use error::{EditorError, InvalidKey};
pub use runner::run;
