//! Detection of trust-requiring resources (P1) and start-up resolution (P4,
//! P5, P6; reference §0 item 10, §1 items 1 and 3, §8.2, §8.3).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::cell::{Cell, RefCell};
use std::fs;
use std::path::{Path, PathBuf};

use pi_config::trust::{
    DefaultTrust, ProjectTrustHandler, TRUST_REQUIRING_PI_ENTRIES, TrustAnswer, TrustChoice, TrustInput, TrustPrompt,
    TrustSource, TrustStore, apply_trust_choice, has_trust_requiring_resources, resolve_trust, trust_options,
    trust_requiring_resources,
};

struct Env {
    _t: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    store: TrustStore,
}

fn env() -> Env {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    let home = root.join("home");
    fs::create_dir_all(&home).unwrap();
    let store = TrustStore::new(&root.join("agent"));
    Env { _t: t, root, home, store }
}

impl Env {
    fn dir(&self, rel: &str) -> PathBuf {
        let p = self.root.join(rel);
        fs::create_dir_all(&p).unwrap();
        p
    }

    /// A folder with `.pi/settings.json`.
    fn project(&self, rel: &str) -> PathBuf {
        let p = self.dir(rel);
        fs::create_dir_all(p.join(".pi")).unwrap();
        fs::write(p.join(".pi/settings.json"), "{}").unwrap();
        p
    }

    fn input<'a>(&self, cwd: &Path) -> TrustInput<'a> {
        let mut i = TrustInput::new(cwd, self.store.clone());
        i.home = Some(self.home.clone());
        i
    }
}

// ------------------------------------------------------------------ detection

#[test]
fn every_pi_entry_triggers_even_when_empty() {
    let e = env();
    for (i, entry) in TRUST_REQUIRING_PI_ENTRIES.iter().enumerate() {
        for as_dir in [false, true] {
            let cwd = e.dir(&format!("p{i}-{as_dir}"));
            let pi = cwd.join(".pi");
            fs::create_dir_all(&pi).unwrap();
            assert!(!has_trust_requiring_resources(&cwd, Some(&e.home)), "bare .pi must not trigger");
            if as_dir {
                fs::create_dir(pi.join(entry)).unwrap();
            } else {
                fs::write(pi.join(entry), "").unwrap();
            }
            assert_eq!(trust_requiring_resources(&cwd, Some(&e.home)), vec![pi.join(entry)], "{entry}");
        }
    }
    // Something else in .pi does not.
    let cwd = e.dir("other");
    fs::create_dir_all(cwd.join(".pi/agent")).unwrap();
    fs::write(cwd.join(".pi/keybindings.json"), "{}").unwrap();
    assert!(!has_trust_requiring_resources(&cwd, Some(&e.home)));
}

#[test]
fn agents_skills_in_cwd_or_any_ancestor_except_home() {
    let e = env();
    let deep = e.dir("a/b/c");
    assert!(!has_trust_requiring_resources(&deep, Some(&e.home)));
    fs::create_dir_all(e.root.join("a/.agents/skills")).unwrap();
    assert_eq!(trust_requiring_resources(&deep, Some(&e.home)), vec![e.root.join("a/.agents/skills")]);
    // `.agents` without `skills` is nothing.
    let x = e.dir("x");
    fs::create_dir_all(x.join(".agents")).unwrap();
    assert!(!has_trust_requiring_resources(&x, Some(&e.home)));

    // $HOME/.agents/skills is the user's own: not a trigger, from $HOME or below.
    fs::create_dir_all(e.home.join(".agents/skills")).unwrap();
    let proj = e.home.join("proj");
    fs::create_dir_all(&proj).unwrap();
    assert!(!has_trust_requiring_resources(&e.home, Some(&e.home)));
    assert!(!has_trust_requiring_resources(&proj, Some(&e.home)));
    // Without knowing $HOME it would be one.
    assert!(has_trust_requiring_resources(&proj, None));
}

#[test]
fn home_pi_agent_is_not_a_trigger_but_home_pi_settings_is() {
    let e = env();
    fs::create_dir_all(e.home.join(".pi/agent")).unwrap();
    fs::write(e.home.join(".pi/agent/settings.json"), "{}").unwrap();
    assert!(!has_trust_requiring_resources(&e.home, Some(&e.home)));
    fs::write(e.home.join(".pi/settings.json"), "{}").unwrap();
    assert!(has_trust_requiring_resources(&e.home, Some(&e.home)));
}

// ----------------------------------------------------------------- resolution

#[test]
fn cli_override_wins_outright() {
    let e = env();
    let p = e.project("p");
    e.store.set(&p, Some(false)).unwrap();
    let mut i = e.input(&p);
    i.cli_override = Some(true);
    i.handlers.push(ProjectTrustHandler {
        extension: "x".into(),
        decide: Box::new(|_| panic!("handlers are not asked when the command line decides")),
    });
    let o = resolve_trust(i).unwrap();
    assert!(o.trusted);
    assert_eq!(o.source, TrustSource::Cli);

    // --no-approve makes even a folder without resources untrusted.
    let plain = e.dir("plain");
    let mut i = e.input(&plain);
    i.cli_override = Some(false);
    let o = resolve_trust(i).unwrap();
    assert!(!o.trusted && !o.has_resources && o.source == TrustSource::Cli);
    assert_eq!(o.untrusted_notice(), None);

    // The store is not consulted: a corrupt one does not matter.
    fs::write(e.store.path(), "{").unwrap();
    let mut i = e.input(&p);
    i.cli_override = Some(false);
    let o = resolve_trust(i).unwrap();
    assert!(!o.trusted);
    assert_eq!(
        o.untrusted_notice(),
        Some(
            "This project is not trusted. Project .pi resources and packages are ignored. Use /trust to save a trust decision, then restart pi."
        )
    );
}

#[test]
fn no_resources_is_trusted_but_the_store_is_still_consulted() {
    let e = env();
    let plain = e.dir("plain");
    let o = resolve_trust(e.input(&plain)).unwrap();
    assert!(o.trusted);
    assert_eq!(o.source, TrustSource::NoResources);

    // A saved false makes a folder without resources untrusted (§0 item 10).
    e.store.set(&e.root, Some(false)).unwrap();
    let o = resolve_trust(e.input(&plain)).unwrap();
    assert!(!o.trusted);
    assert_eq!(o.source, TrustSource::Saved { path: e.root.clone() });

    // And a corrupt store is fatal there too.
    fs::write(e.store.path(), "[1]").unwrap();
    let err = resolve_trust(e.input(&plain)).unwrap_err();
    assert_eq!(err.to_string(), format!("Invalid trust store {}: expected an object", e.store.path().display()));
}

#[test]
fn handlers_only_with_resources_first_decision_wins() {
    let e = env();
    let calls = Cell::new(0);
    let plain = e.dir("plain");
    let mut i = e.input(&plain);
    i.handlers.push(ProjectTrustHandler {
        extension: "a".into(),
        decide: Box::new(|_| {
            calls.set(calls.get() + 1);
            Ok(TrustAnswer { decision: Some(false), remember: false })
        }),
    });
    assert!(resolve_trust(i).unwrap().trusted);
    assert_eq!(calls.get(), 0, "no resources: handlers are not asked");

    let p = e.project("p");
    let seen = RefCell::new(Vec::<String>::new());
    let mut i = e.input(&p);
    i.default_trust = DefaultTrust::Always;
    i.handlers.push(ProjectTrustHandler {
        extension: "/ext/undecided.ts".into(),
        decide: Box::new(|cwd| {
            seen.borrow_mut().push(format!("undecided {}", cwd.display()));
            Ok(TrustAnswer::default())
        }),
    });
    i.handlers.push(ProjectTrustHandler {
        extension: "/ext/broken.ts".into(),
        decide: Box::new(|_| {
            seen.borrow_mut().push("broken".into());
            Err("boom".into())
        }),
    });
    i.handlers.push(ProjectTrustHandler {
        extension: "/ext/no.ts".into(),
        decide: Box::new(|_| {
            seen.borrow_mut().push("no".into());
            Ok(TrustAnswer { decision: Some(false), remember: false })
        }),
    });
    i.handlers.push(ProjectTrustHandler {
        extension: "/ext/late.ts".into(),
        decide: Box::new(|_| {
            seen.borrow_mut().push("late".into());
            Ok(TrustAnswer { decision: Some(true), remember: false })
        }),
    });
    let o = resolve_trust(i).unwrap();
    assert!(!o.trusted);
    assert_eq!(o.source, TrustSource::Extension { extension: "/ext/no.ts".into(), remembered: false });
    assert_eq!(o.warnings, vec!["Extension \"/ext/broken.ts\" project_trust error: boom".to_string()]);
    assert_eq!(*seen.borrow(), vec![format!("undecided {}", p.display()), "broken".into(), "no".into()]);
    assert_eq!(e.store.get(&p).unwrap(), None, "not remembered");
}

#[test]
fn handler_remember_saves_exactly_the_folder_and_beats_saved_decisions() {
    let e = env();
    let p = e.project("a/p");
    e.store.set(&e.root.join("a"), Some(false)).unwrap();
    let mut i = e.input(&p);
    i.handlers.push(ProjectTrustHandler {
        extension: "x".into(),
        decide: Box::new(|_| Ok(TrustAnswer { decision: Some(true), remember: true })),
    });
    let o = resolve_trust(i).unwrap();
    assert!(o.trusted);
    assert_eq!(o.source, TrustSource::Extension { extension: "x".into(), remembered: true });
    assert_eq!(e.store.entries().unwrap(), vec![(e.root.join("a"), false), (p.clone(), true)]);
}

#[test]
fn saved_decision_then_default_setting() {
    let e = env();
    let p = e.project("p");
    for (d, trusted) in [(DefaultTrust::Always, true), (DefaultTrust::Never, false), (DefaultTrust::Ask, false)] {
        let mut i = e.input(&p);
        i.default_trust = d;
        let o = resolve_trust(i).unwrap();
        assert_eq!((o.trusted, o.source), (trusted, TrustSource::Default(d)));
    }
    e.store.set(&p, Some(true)).unwrap();
    let mut i = e.input(&p);
    i.default_trust = DefaultTrust::Never;
    let o = resolve_trust(i).unwrap();
    assert!(o.trusted);
    assert_eq!(o.source, TrustSource::Saved { path: p.clone() });
}

fn resolve_with_prompt(
    e: &Env,
    cwd: &Path,
    default: DefaultTrust,
    answer: Option<TrustChoice>,
) -> (pi_config::TrustOutcome, Vec<TrustPrompt>) {
    let shown = RefCell::new(Vec::new());
    let mut i = e.input(cwd);
    i.default_trust = default;
    i.prompt = Some(Box::new(|p: &TrustPrompt| {
        shown.borrow_mut().push(p.clone());
        answer
    }));
    let o = resolve_trust(i).unwrap();
    (o, shown.into_inner())
}

#[test]
fn prompt_only_for_ask_with_exact_title_and_options() {
    let e = env();
    let p = e.project("a/p");
    let (o, shown) = resolve_with_prompt(&e, &p, DefaultTrust::Always, Some(TrustChoice::DoNotTrust));
    assert!(o.trusted && shown.is_empty());
    let (o, shown) = resolve_with_prompt(&e, &p, DefaultTrust::Ask, None);
    assert!(!o.trusted);
    assert_eq!(o.source, TrustSource::Prompt(None));
    assert_eq!(e.store.entries().unwrap(), vec![], "dismissing saves nothing");
    assert_eq!(shown.len(), 1);
    assert_eq!(
        shown[0].title,
        format!(
            "Trust project folder?\n{}\n\nThis allows pi to load .pi settings and resources, install missing project packages, and execute project extensions.",
            p.display()
        )
    );
    let labels: Vec<&str> = shown[0].options.iter().map(|o| o.label.as_str()).collect();
    let parent = format!("Trust parent folder ({})", e.root.join("a").display());
    assert_eq!(
        labels,
        vec!["Trust", parent.as_str(), "Trust (this session only)", "Do not trust", "Do not trust (this session only)"]
    );
}

#[test]
fn prompt_choices_and_their_effects() {
    let e = env();
    let p = e.project("a/p");
    let a = e.root.join("a");

    let (o, _) = resolve_with_prompt(&e, &p, DefaultTrust::Ask, Some(TrustChoice::TrustSession));
    assert!(o.trusted);
    let (o, _) = resolve_with_prompt(&e, &p, DefaultTrust::Ask, Some(TrustChoice::DoNotTrustSession));
    assert!(!o.trusted);
    assert_eq!(e.store.entries().unwrap(), vec![], "session-only choices save nothing");

    let (o, _) = resolve_with_prompt(&e, &p, DefaultTrust::Ask, Some(TrustChoice::DoNotTrust));
    assert!(!o.trusted);
    assert_eq!(e.store.entries().unwrap(), vec![(p.clone(), false)]);
    // Now saved: no more prompt.
    let (o, shown) = resolve_with_prompt(&e, &p, DefaultTrust::Ask, Some(TrustChoice::Trust));
    assert!(!o.trusted && shown.is_empty());

    // Trust parent: saves the parent and deletes the folder's own key.
    assert!(apply_trust_choice(&e.store, &p, TrustChoice::TrustParent).unwrap());
    assert_eq!(e.store.entries().unwrap(), vec![(a.clone(), true)]);
    assert!(apply_trust_choice(&e.store, &p, TrustChoice::Trust).unwrap());
    assert_eq!(e.store.entries().unwrap(), vec![(a.clone(), true), (p.clone(), true)]);
}

#[test]
fn options_without_session_only_and_at_the_root() {
    let e = env();
    let p = e.dir("p");
    let labels = |cwd: &Path, s: bool| trust_options(cwd, s).into_iter().map(|o| o.label).collect::<Vec<_>>();
    assert_eq!(
        labels(&p, false),
        vec!["Trust".to_string(), format!("Trust parent folder ({})", e.root.display()), "Do not trust".into()]
    );
    assert_eq!(
        labels(Path::new("/"), true),
        vec!["Trust", "Trust (this session only)", "Do not trust", "Do not trust (this session only)"]
    );
    assert_eq!(labels(Path::new("/"), false), vec!["Trust", "Do not trust"]);
}

#[test]
fn the_title_and_notice_constants() {
    assert_eq!(
        pi_config::trust::trust_prompt_title(Path::new("/w")),
        "Trust project folder?\n/w\n\nThis allows pi to load .pi settings and resources, install missing project packages, and execute project extensions."
    );
    assert_eq!(
        pi_config::trust::UNTRUSTED_NOTICE,
        "This project is not trusted. Project .pi resources and packages are ignored. Use /trust to save a trust decision, then restart pi."
    );
    assert_eq!(
        pi_config::text::saved_trust_decision(true),
        "Saved trust decision: trusted. Restart pi for this to take effect."
    );
    assert_eq!(
        pi_config::text::saved_decision_line(Some((Path::new("/a"), false)), Path::new("/a/b")),
        "Saved decision: untrusted (inherited from /a)"
    );
    assert_eq!(pi_config::text::saved_decision_line(None, Path::new("/a")), "Saved decision: none");
}
