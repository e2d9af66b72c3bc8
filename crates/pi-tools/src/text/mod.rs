//! Every model- or user-visible message of the tools, in one place.
//!
//! Fixed strings are constants; strings with values are small functions so the
//! wording lives here and nowhere else. One file per tool, plus `common`.

pub mod args;
pub mod bash;
pub mod common;
pub mod edit;
pub mod find;
pub mod grep;
pub mod ls;
pub mod read;
pub mod write;
