//! The theme extensions style text with (`ctx.ui.theme`): each colour
//! role's opening and closing escape sequences, as pi's front end chose the
//! theme (the `theme` setting, else `system`). One per run: the front end
//! makes the handle, hands it to every load of the run's extensions
//! ([`crate::HostOptions::theme`]), and sets it at start-up and whenever it
//! reads the theme again; every engine loaded with it reads the latest.

use std::sync::{Arc, RwLock};

use serde_json::Value;

/// A run's theme for extensions; clones share one theme. Until it is set,
/// text stays plain.
#[derive(Clone, Default)]
pub struct ExtTheme(Arc<RwLock<Option<Arc<Value>>>>);

impl std::fmt::Debug for ExtTheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = self.0.read().map(|g| g.is_some()).unwrap_or(false);
        f.debug_struct("ExtTheme").field("set", &set).finish()
    }
}

impl ExtTheme {
    /// Use `table` (role name → `[open, close]`) and `truecolor` (the colour
    /// mode `getColorMode()` reports) from now on.
    pub fn set(&self, table: Value, truecolor: bool) {
        let mode = if truecolor { "truecolor" } else { "256color" };
        let value = serde_json::json!({"roles": table, "mode": mode});
        if let Ok(mut g) = self.0.write() {
            *g = Some(Arc::new(value));
        }
    }

    /// The theme as the glue reads it (`null` before one was set: text stays plain).
    pub(crate) fn current(&self) -> Value {
        self.0.read().ok().and_then(|g| g.as_deref().cloned()).unwrap_or(Value::Null)
    }
}
