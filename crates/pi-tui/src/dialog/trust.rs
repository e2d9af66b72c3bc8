//! The trust dialogs (requirements P4 and P8): the start-up question with
//! its five answers, and `/trust` with its three, the saved decision marked.

use std::path::Path;

use pi_config::trust::{TrustChoice, TrustOption, canonical_dir, trust_options};
use pi_config::{TrustError, TrustStore};
use ratatui::style::{Modifier, Style};

use super::{SelectDialog, SelectItem};
use crate::lines::styled;

/// The start-up dialog: `title` is the reference's question (folder and
/// explanation included), `options` the five answers.
pub fn startup(title: &str, options: &[TrustOption]) -> SelectDialog {
    SelectDialog::new(title, options.iter().map(|o| SelectItem::new(o.label.clone())).collect())
}

/// Which option a saved decision corresponds to.
fn saved_choice(cwd: &Path, entry: Option<(&Path, bool)>) -> Option<TrustChoice> {
    let (path, decision) = entry?;
    match (path == cwd, decision) {
        (true, true) => Some(TrustChoice::Trust),
        (true, false) => Some(TrustChoice::DoNotTrust),
        (false, true) if cwd.parent() == Some(path) => Some(TrustChoice::TrustParent),
        _ => None,
    }
}

/// `/trust`: the saved decision and the session's, then the three answers
/// (the saved one marked and selected). Also the options, to apply the answer.
pub fn command(
    store: &TrustStore,
    cwd: &Path,
    trusted_now: bool,
) -> Result<(SelectDialog, Vec<TrustOption>), TrustError> {
    let cwd = canonical_dir(cwd);
    let entry = store.get_entry(&cwd)?;
    let entry = entry.as_ref().map(|e| (e.path.as_path(), e.decision));
    let options = trust_options(&cwd, false);
    let saved = saved_choice(&cwd, entry);
    let items: Vec<SelectItem> = options
        .iter()
        .map(|o| SelectItem { label: o.label.clone(), detail: None, marked: Some(o.choice) == saved })
        .collect();
    let start = options.iter().position(|o| Some(o.choice) == saved).unwrap_or(0);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let title = vec![
        styled(crate::text::PROJECT_TRUST_TITLE, bold),
        styled(cwd.display().to_string(), bold),
        ratatui::text::Line::default(),
        styled(pi_config::text::saved_decision_line(entry, &cwd), Style::default()),
        styled(pi_config::text::current_session_line(trusted_now), Style::default()),
    ];
    let dialog = SelectDialog::new("", items).with_title_lines(title).selected(start).verb(crate::text::VERB_SAVE);
    Ok((dialog, options))
}
