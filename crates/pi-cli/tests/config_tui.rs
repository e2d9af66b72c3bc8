//! `pi config` under tmux: the screen the reference draws, and the settings it
//! writes, recorded side by side with Pi 1.6.0 (global switches, the
//! project's inherit/unload/load cycle, a package's project entry).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::tui_support;

use serde_json::{Value, json};
use tui_support::{Scene, Tmux, have_tmux};

fn settings(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn start(scene: &Scene, flags: &str) -> Tmux {
    let command = format!(
        "cd {work} && env HOME={home} TMPDIR={tmp} {bin} config {flags}; echo PI-EXIT-$?; sleep 600",
        work = scene.work().display(),
        home = scene.home().display(),
        tmp = scene.tmp().display(),
        bin = env!("CARGO_BIN_EXE_pi"),
    );
    let t = Tmux::start(100, 30, &command);
    t.wait("the screen", |s| s.contains("tool-search"));
    t
}

#[test]
fn config_switches_package_resources_and_built_ins_as_the_reference() {
    if !have_tmux() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let scene = Scene::new(vec![]);
    let pkg = scene.root.path().join("pkg");
    std::fs::create_dir_all(pkg.join("extensions")).unwrap();
    std::fs::create_dir_all(pkg.join("skills/greet")).unwrap();
    std::fs::write(pkg.join("package.json"), r#"{"name": "pkg-a", "version": "1.0.0"}"#).unwrap();
    std::fs::write(pkg.join("extensions/cmd.ts"), "export default function () {}\n").unwrap();
    std::fs::write(pkg.join("skills/greet/SKILL.md"), "---\nname: greet\ndescription: Greets\n---\nHi.\n").unwrap();
    let user = scene.agent_dir().join("settings.json");
    std::fs::write(&user, r#"{"packages": ["../../../pkg"]}"#).unwrap();

    let t = start(&scene, "");
    let screen = t.screen();
    let lines: Vec<&str> = screen.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[1..16],
        [
            "Global Resources                                          tab switch mode · space toggle · esc close",
            "~/.pi/agent/settings.json",
            ">",
            "  ../../../pkg (user)",
            "    Extensions",
            ">     [x] cmd.ts",
            "    Skills",
            "      [x] greet",
            "  Built-in",
            "    Extensions",
            "      [x] codemode",
            "      [x] llama.cpp",
            "      [x] mcp",
            "      [x] tool-search",
            "─".repeat(100).as_str(),
        ],
        "{screen}"
    );
    // Off, a built-in off, then on again: what the reference writes.
    t.keys(&["Space", "Down", "Down", "Down", "Space", "Up", "Up", "Up", "Space"]);
    t.wait("the switches", |s| s.contains("[ ] llama.cpp") && s.contains("[x] cmd.ts"));
    assert_eq!(
        settings(&user),
        json!({"packages": [{"source": "../../../pkg", "extensions": ["+extensions/cmd.ts"]}],
            "extensions": ["-builtin:llama.cpp"]})
    );
    // Project mode: inherited, unload, load, inherited again.
    let project = scene.work().join(".pi/settings.json");
    t.keys(&["Tab"]);
    t.wait("project mode", |s| s.contains("Project Local Resources") && s.contains("[x] codemode  inherited global"));
    t.keys(&["Down", "Down", "Space"]);
    t.wait("unload", |s| s.contains("[-] codemode  project unload"));
    assert_eq!(settings(&project), json!({"extensions": ["-builtin:codemode"]}));
    t.keys(&["Space"]);
    t.wait("load", |s| s.contains("[+] codemode  project load"));
    t.keys(&["Space"]);
    t.wait("inherited", |s| s.contains("[x] codemode  inherited global"));
    assert_eq!(settings(&project), json!({"extensions": []}));
    // A package's resource: the project's entry narrows the user's.
    t.keys(&["Up", "Up", "Space"]);
    t.wait("package unload", |s| s.contains("[-] cmd.ts  project unload"));
    assert_eq!(
        settings(&project),
        json!({"extensions": [], "packages": [{"source": "../../pkg", "autoload": false, "extensions": ["-extensions/cmd.ts"]}]})
    );
    // Typing filters; Escape closes.
    t.type_text("greet");
    t.wait("the filter", |s| s.contains("> greet") && !s.contains("codemode"));
    t.keys(&["Escape"]);
    t.wait("the end", |s| s.contains("PI-EXIT-0"));
}

#[test]
fn config_without_a_terminal_says_so() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pi"))
        .arg("config")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pi config needs a terminal"));
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_pi")).args(["config", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("Usage:\n  pi config [-l] [--approve|--no-approve]\n"));
}
