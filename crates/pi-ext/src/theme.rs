//! The theme extensions style text with (`ctx.ui.theme`): each colour
//! role's opening and closing escape sequences, as pi's front end chose the
//! theme (the `theme` setting, else `system`). One per process: the front
//! end sets it at start-up and when the theme is read again.

use std::sync::{Arc, RwLock};

use serde_json::Value;

static THEME: RwLock<Option<Arc<Value>>> = RwLock::new(None);

/// Use `table` (role name → `[open, close]`) and `truecolor` (the colour
/// mode `getColorMode()` reports) from now on.
pub fn set_theme(table: Value, truecolor: bool) {
    let mode = if truecolor { "truecolor" } else { "256color" };
    let value = serde_json::json!({"roles": table, "mode": mode});
    if let Ok(mut g) = THEME.write() {
        *g = Some(Arc::new(value));
    }
}

/// The theme as the glue reads it (`null` before one was set: text stays plain).
pub(crate) fn current() -> Value {
    THEME.read().ok().and_then(|g| g.as_deref().cloned()).unwrap_or(Value::Null)
}
