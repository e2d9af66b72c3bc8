//! Project trust: a start-up gate deciding whether a folder's own `.pi`
//! resources load (requirements P1–P8).
//!
//! - [`TrustStore`]: the saved decisions in `<agent-dir>/trust.json`;
//! - [`has_trust_requiring_resources`]: does a folder need a decision at all;
//! - [`resolve_trust`]: the start-up decision, from the command line,
//!   extensions, the store, and `defaultProjectTrust`;
//! - [`trust_options`] / [`apply_trust_choice`]: the prompt's options and their
//!   effects, shared by the start-up prompt and `/trust`.
//!
//! Trust never limits what tools can reach, and context files load whatever
//! the decision.

mod detect;
pub(crate) mod fsio;
mod resolve;
mod store;

pub use crate::text::{UNTRUSTED_NOTICE, trust_prompt_title};
pub use detect::{TRUST_REQUIRING_PI_ENTRIES, has_trust_requiring_resources, home_dir, trust_requiring_resources};
pub use fsio::{LOCK_RETRY_DELAY, LOCK_WAIT_LIMIT};
pub use resolve::{
    DefaultTrust, ProjectTrustHandler, TrustAnswer, TrustChoice, TrustHandlerFn, TrustInput, TrustOption, TrustOutcome,
    TrustPrompt, TrustPromptFn, TrustSource, apply_trust_choice, resolve_trust, trust_options,
};
pub use store::{TRUST_FILE_NAME, TrustEntry, TrustError, TrustStore, canonical_dir};
