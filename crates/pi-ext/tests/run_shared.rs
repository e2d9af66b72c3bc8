//! What the extensions of one run share through their [`HostOptions`]:
//! every load made with clones of one options value hears the others'
//! dialogs (`ui_prompt_start`/`ui_prompt_end`) and reads the theme the
//! front end sets on the handle, even after loading; another run's
//! extensions hear and read nothing of it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use pi_agent::{CallRequest, Caller, Dispatcher, RawArgs, Registry};
use pi_ext::{ExtensionHost, HostOptions, LoadedExtensions, NotifyLevel, UiBridge, UiRequest, UiResponse};
use pi_tools::ToolContext;
use serde_json::{Value, json};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/run-shared.ts")
}

/// A UI that says yes to every dialog.
struct Yes;

impl UiBridge for Yes {
    fn dialog(&self, _request: UiRequest) -> BoxFuture<'static, UiResponse> {
        Box::pin(async { UiResponse::Confirmed(true) })
    }
    fn notify(&self, _message: &str, _level: NotifyLevel) {}
}

fn run_options(dir: &Path) -> HostOptions {
    HostOptions { cwd: dir.to_path_buf(), has_ui: true, ui: Some(Arc::new(Yes)), ..Default::default() }
}

/// Call the extension's tool; what it answers.
async fn ask(loaded: &LoadedExtensions, dir: &Path, args: Value) -> Value {
    let mut reg = Registry::new();
    for t in &loaded.tools {
        reg.register(t.clone());
    }
    reg.set_active(&["run_shared".into()]);
    let d = Dispatcher::new(reg);
    let req = CallRequest { id: "c".into(), name: "run_shared".into(), args: RawArgs::Json(args), parent: None };
    let f = d.call(req, Caller::Model, &ToolContext::new(dir)).await;
    serde_json::from_str(&f.result.text_content()).unwrap_or_else(|e| panic!("{e}: {}", f.result.text_content()))
}

/// What the extension heard, once it heard `n` events (they are not awaited) or after 5 s.
async fn heard(loaded: &LoadedExtensions, dir: &Path, n: usize) -> Value {
    let start = Instant::now();
    loop {
        let answer = ask(loaded, dir, json!({})).await;
        if answer["heard"].as_array().map_or(0, Vec::len) >= n || start.elapsed() > Duration::from_secs(5) {
            return answer["heard"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_loads_of_a_run_share_its_prompt_spans_and_theme() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_options(dir.path());
    let first = ExtensionHost::load(&[fixture()], run.clone()).await.unwrap();
    let second = ExtensionHost::load(&[fixture()], run.clone()).await.unwrap();
    let other = ExtensionHost::load(&[fixture()], run_options(dir.path())).await.unwrap();
    run.theme.set(json!({"accent": ["<", ">"]}), true);

    let answer = ask(&first, dir.path(), json!({"ask": "Sure?"})).await;
    assert_eq!(answer["accent"], "<x>");
    let both = json!(["start confirm Sure?", "end confirm Sure?"]);
    assert_eq!(heard(&first, dir.path(), 2).await, both);
    assert_eq!(heard(&second, dir.path(), 2).await, both);

    let answer = ask(&other, dir.path(), json!({})).await;
    assert_eq!(answer, json!({"heard": [], "accent": "x"}));
}
