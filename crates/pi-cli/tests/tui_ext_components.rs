#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! Extension components in the terminal UI, end to end under tmux: a
//! `ctx.ui.custom()` picker drawn and driven by keys until it calls `done`,
//! a replaced footer, statuses, widgets and the editor text.

use crate::tui_support;

use std::path::PathBuf;

use tui_support::{Scene, have_tmux, idle};

fn fixture() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/extensions/ui-components.ts")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_custom_component_is_drawn_and_driven_until_it_is_done() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("/pick");
    t.keys(&["Enter"]);
    let screen = t.wait("the picker", |s| s.contains("Pick one (width") && s.contains("> apple"));
    assert!(screen.contains("  banana"), "{screen}");
    t.keys(&["Down"]);
    t.wait("the move", |s| s.contains("> banana"));
    t.keys(&["Enter"]);
    let screen = t.wait("the result", |s| s.contains("picked banana"));
    assert!(!screen.contains("Pick one"), "the picker is gone:\n{screen}");

    // Escape: the component itself answers null.
    t.type_text("/pick");
    t.keys(&["Enter"]);
    t.wait("the picker again", |s| s.contains("> apple"));
    t.keys(&["Escape"]);
    t.wait("nothing picked", |s| s.contains("picked nothing"));
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn footer_status_widget_and_editor_text_reach_the_screen() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("/chrome");
    t.keys(&["Enter"]);
    let screen = t.wait("the chrome", |s| {
        s.contains("EXT-FOOTER here") && s.contains("EXT-WIDGET line") && s.contains("prefilled by ext")
    });
    assert!(screen.contains("EXT-FOOTER here"), "{screen}");
    t.keys(&["C-c"]);
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn a_shortcut_runs_its_handler_and_what_it_sends() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![pi_test_support::Turn::text("answer to the shortcut")]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.keys(&["F5"]);
    let screen = t
        .wait("the shortcut", |s| s.contains("shortcut ran in tui") && s.contains("answer to the shortcut") && idle(s));
    assert!(screen.contains("from the shortcut"), "{screen}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn a_commands_argument_completions_are_offered_as_the_user_types() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("/deploy s");
    let screen = t.wait("the suggestions", |s| s.contains("staging") && s.contains("to staging"));
    assert!(!screen.contains("to prod"), "only what starts with the prefix:\n{screen}");
    t.keys(&["Tab"]);
    t.wait("the chosen argument", |s| s.lines().any(|l| l.contains("/deploy staging")));
    t.keys(&["Enter"]);
    t.wait("the command", |s| s.contains("deploying to staging"));
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn custom_messages_are_shown_by_their_renderer_or_in_a_labelled_box() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("/note");
    t.keys(&["Enter"]);
    let screen = t.wait("the messages", |s| s.contains("FANCY(shut): hello there") && s.contains("plain words"));
    assert!(screen.contains("[plain]"), "{screen}");
    assert!(!screen.contains("never shown"), "{screen}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn an_extension_tool_is_drawn_by_its_render_call_and_render_result() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        pi_test_support::Turn::tool("weather", serde_json::json!({"city": "Oslo"})),
        pi_test_support::Turn::text("It is sunny."),
    ]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("weather?");
    t.keys(&["Enter"]);
    let screen = t.wait("the tool row", |s| s.contains("It is sunny.") && idle(s));
    assert!(screen.contains("WEATHER CALL city=Oslo"), "{screen}");
    assert!(screen.contains("WEATHER RESULT sunny in Oslo temp=21 state=call"), "{screen}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn ctx_shutdown_ends_the_terminal_ui_once_idle() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("/bye");
    t.keys(&["Enter"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn custom_entries_are_shown_only_through_their_entry_renderer() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, &format!("-e {}", fixture()));
    t.wait("the editor", idle);
    t.type_text("/mark");
    t.keys(&["Enter"]);
    let screen = t.wait("the entry", |s| s.contains("MARK 7 (shut)"));
    assert!(!screen.contains("unmarked") && !screen.contains("\"n\":8"), "{screen}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}
