//! Extension components in the terminal UI: `ctx.ui.custom()` shown as a
//! dialog until the extension calls `done(result)` (or the user presses
//! Escape twice), and `setFooter`/`setHeader` components in place of the
//! built-in ones. pi-ext drives the extension's JavaScript; this adapts it
//! to the UI's [`Component`] contract and routes `done` to the dialog.

use futures::future::BoxFuture;
use pi_tui::host::{Component, ComponentHandle, UiCall, UiHandle};

use super::link::{Link, Slot};
use serde_json::Value;

/// An extension's component as the UI draws it.
struct Adapter(Box<dyn pi_ext::ExtComponent>);

impl Component for Adapter {
    fn render(&mut self, width: u16) -> Vec<String> {
        self.0.render(width)
    }
    fn handle_input(&mut self, data: &str) {
        self.0.handle_input(data);
    }
    fn invalidate(&mut self) {
        self.0.invalidate();
    }
}

/// Show component `id` through the UI `link` reaches; what it resolved
/// (`null` when the UI closed it or went away).
pub(crate) fn custom(link: Link, id: u64, component: Box<dyn pi_ext::ExtComponent>) -> BoxFuture<'static, Value> {
    Box::pin(async move {
        let Some(ui) = link.handle() else { return Value::Null };
        let shown = link.clone();
        let factory = Box::new(move |handle: ComponentHandle| {
            let early = shown.with_shown(|m| match m.remove(&id) {
                Some(Slot::Done(v)) => Some(v),
                _ => {
                    m.insert(id, Slot::Open(handle.clone()));
                    None
                }
            });
            if let Some(Some(v)) = early {
                handle.done(v);
            }
            Box::new(Adapter(component)) as Box<dyn Component>
        });
        let result = ui.custom(factory).await;
        link.with_shown(|m| m.remove(&id));
        result
    })
}

/// Component `id` called `done(result)`.
pub(crate) fn done(link: &Link, id: u64, result: Value) {
    let open = link.with_shown(|m| match m.remove(&id) {
        Some(Slot::Open(h)) => Some(h),
        _ => {
            m.insert(id, Slot::Done(result.clone()));
            None
        }
    });
    if let Some(Some(handle)) = open {
        handle.done(result);
    }
}

/// A component in place of the footer or header (`None`: the built-in one).
pub(crate) fn place(
    ui: Option<UiHandle>,
    slot: pi_ext::ComponentSlot,
    component: Option<Box<dyn pi_ext::ExtComponent>>,
) {
    let Some(ui) = ui else { return };
    let factory = component.map(|c| {
        Box::new(move |_handle: ComponentHandle| Box::new(Adapter(c)) as Box<dyn Component>)
            as pi_tui::host::ComponentFactory
    });
    ui.send(match slot {
        pi_ext::ComponentSlot::Footer => UiCall::Footer(factory),
        pi_ext::ComponentSlot::Header => UiCall::Header(factory),
    });
}
