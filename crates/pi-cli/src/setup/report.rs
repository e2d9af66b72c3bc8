//! How start-up tells the user things: warnings and errors on standard
//! error, in the order they happen (collected instead, in tests), and why it
//! stopped.

use std::fmt::Display;
use std::process::ExitCode;

use crate::cli_args::Diagnostic;

/// Where start-up's lines go.
pub(crate) struct Report {
    collected: Option<Vec<String>>,
}

impl Report {
    /// Lines go to standard error at once.
    pub(crate) fn stderr() -> Self {
        Report { collected: None }
    }

    /// Lines are kept (tests read them with [`Report::lines`]).
    #[cfg(test)]
    pub(crate) fn collecting() -> Self {
        Report { collected: Some(Vec::new()) }
    }

    /// The lines kept so far.
    #[cfg(test)]
    pub(crate) fn lines(&self) -> &[String] {
        self.collected.as_deref().unwrap_or(&[])
    }

    /// One line, as is.
    pub(crate) fn line(&mut self, line: impl Into<String>) {
        let line = line.into();
        match &mut self.collected {
            Some(v) => v.push(line),
            None => eprintln!("{line}"),
        }
    }

    /// `Warning: <message>`.
    pub(crate) fn warn(&mut self, message: impl Display) {
        self.line(format!("Warning: {message}"));
    }

    /// Every diagnostic, in order; whether any was an error.
    pub(crate) fn diagnostics(&mut self, diagnostics: &[Diagnostic]) -> bool {
        for d in diagnostics {
            self.line(d.line());
        }
        diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Why start-up ended before a mode ran.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A failure: `Error: <message>` and exit status 1.
    Error(String),
    /// Everything was already said: exit with this status.
    Exit(u8),
}

impl From<pi_runtime::extensions::UnknownBuiltin> for Stop {
    fn from(e: pi_runtime::extensions::UnknownBuiltin) -> Stop {
        Stop::Error(e.to_string())
    }
}

impl Stop {
    /// Report the stop and give the process's exit status.
    pub(crate) fn finish(self, report: &mut Report) -> ExitCode {
        match self {
            Stop::Error(message) => {
                report.line(format!("Error: {message}"));
                ExitCode::from(1)
            }
            Stop::Exit(code) => ExitCode::from(code),
        }
    }
}

impl From<String> for Stop {
    fn from(message: String) -> Self {
        Stop::Error(message)
    }
}
