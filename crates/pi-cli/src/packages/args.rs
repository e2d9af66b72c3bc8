//! The command line of `pi install|remove|uninstall|update|list`, read as
//! the reference reads it (the first problem found is the one reported).

use super::text;

/// Which package command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    Install,
    Remove,
    Update,
    List,
}

impl Command {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Command::Install => "install",
            Command::Remove => "remove",
            Command::Update => "update",
            Command::List => "list",
        }
    }

    pub(crate) fn usage(self) -> &'static str {
        match self {
            Command::Install => text::INSTALL_USAGE,
            Command::Remove => text::REMOVE_USAGE,
            Command::Update => text::UPDATE_USAGE,
            Command::List => text::LIST_USAGE,
        }
    }
}

/// What `pi update` updates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UpdateTarget {
    /// pi itself.
    SelfOnly,
    /// Packages: all, or the one named.
    Packages(Option<String>),
    /// pi and every package.
    All,
    /// Model catalogs.
    Models,
}

/// A parsed package command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageArgs {
    pub command: Command,
    pub source: Option<String>,
    pub local: bool,
    pub approve: Option<bool>,
    pub help: bool,
    pub update: UpdateTarget,
    /// `pi update` with no target: say that packages are skipped.
    pub skipped_note: bool,
    /// The first usage problem: (message, hint line).
    pub error: Option<(String, String)>,
}

#[derive(Default)]
struct Flags {
    self_: bool,
    extensions: bool,
    models: bool,
    all: bool,
    force: bool,
    extension: Option<String>,
}

/// `None` when `args[0]` is not a package command.
pub(crate) fn parse(args: &[String]) -> Option<PackageArgs> {
    let command = match args.first()?.as_str() {
        "install" => Command::Install,
        "remove" | "uninstall" => Command::Remove,
        "update" => Command::Update,
        "list" => Command::List,
        _ => return None,
    };
    let mut out = PackageArgs {
        command,
        source: None,
        local: false,
        approve: None,
        help: false,
        update: UpdateTarget::SelfOnly,
        skipped_note: false,
        error: None,
    };
    let usage = text::usage_line(command.usage());
    let (mut invalid_option, mut missing_value, mut unexpected, mut conflict) = (None, None, None, None);
    let mut f = Flags::default();
    let update = command == Command::Update;
    let rest = &args[1..];
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i].as_str();
        i += 1;
        let mut only_update = |set: &mut bool| {
            if update {
                *set = true
            } else {
                invalid_option.get_or_insert(arg.to_string());
            }
        };
        match arg {
            "-h" | "--help" => out.help = true,
            "-l" | "--local" if matches!(command, Command::Install | Command::Remove) => out.local = true,
            "--self" => only_update(&mut f.self_),
            "--extensions" => only_update(&mut f.extensions),
            "--models" => only_update(&mut f.models),
            "--all" => only_update(&mut f.all),
            "--force" => only_update(&mut f.force),
            "-a" | "--approve" => out.approve = Some(true),
            "-na" | "--no-approve" => out.approve = Some(false),
            "--extension" if update => match rest.get(i).filter(|v| !v.starts_with('-')) {
                None => {
                    missing_value.get_or_insert(arg.to_string());
                }
                Some(v) => {
                    if f.extension.is_some() {
                        conflict.get_or_insert(text::EXTENSION_ONCE.to_string());
                    } else {
                        f.extension = Some(v.clone());
                    }
                    i += 1;
                }
            },
            a if a.starts_with('-') => {
                invalid_option.get_or_insert(a.to_string());
            }
            a => match out.source {
                Some(_) => {
                    unexpected.get_or_insert(a.to_string());
                }
                None => out.source = Some(a.to_string()),
            },
        }
    }
    if update {
        let (target, note, c) = update_target(&f, out.source.as_deref());
        out.update = target;
        out.skipped_note = note;
        if let Some(c) = c {
            conflict.get_or_insert(c.to_string());
        }
    }
    out.error = if let Some(o) = invalid_option {
        Some((text::unknown_option(&o, command.name()), text::unknown_option_hint(command.usage())))
    } else if let Some(o) = missing_value {
        Some((text::missing_value(&o), usage))
    } else if let Some(a) = unexpected {
        Some((text::unexpected_argument(&a), usage))
    } else {
        conflict.map(|c| (c, usage))
    };
    Some(out)
}

fn update_target(f: &Flags, source: Option<&str>) -> (UpdateTarget, bool, Option<&'static str>) {
    let mut conflict = None;
    let mut note = |c: &'static str| {
        conflict.get_or_insert(c);
    };
    if f.all && (f.self_ || f.extensions || f.models || f.extension.is_some()) {
        note(text::ALL_CONFLICT);
    }
    if f.all && source.is_some() {
        note(text::ALL_SOURCE_CONFLICT);
    }
    let mut skipped = false;
    let target = if f.models {
        if f.self_ || f.extensions || f.all || f.extension.is_some() {
            note(text::MODELS_CONFLICT);
        }
        if source.is_some() {
            note(text::MODELS_SOURCE_CONFLICT);
        }
        UpdateTarget::Models
    } else if let Some(e) = &f.extension {
        if f.self_ || f.extensions || f.all {
            note(text::EXTENSION_CONFLICT);
        }
        if source.is_some() {
            note(text::EXTENSION_SOURCE_CONFLICT);
        }
        UpdateTarget::Packages(Some(e.clone()))
    } else if let Some(s) = source {
        if s == "self" || s == "pi" {
            if f.extensions { UpdateTarget::All } else { UpdateTarget::SelfOnly }
        } else {
            if f.extensions || f.self_ || f.all {
                note(text::POSITIONAL_CONFLICT);
            }
            UpdateTarget::Packages(Some(s.to_string()))
        }
    } else if f.all || (f.self_ && f.extensions) {
        UpdateTarget::All
    } else if f.self_ {
        UpdateTarget::SelfOnly
    } else if f.extensions {
        UpdateTarget::Packages(None)
    } else {
        skipped = true;
        UpdateTarget::SelfOnly
    };
    (target, skipped, conflict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: &str) -> PackageArgs {
        let v: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&v).unwrap()
    }

    #[test]
    fn reads_the_reference_command_lines() {
        assert_eq!(parse(&["hello".to_string()]), None);
        let a = p("uninstall ./x -l -a");
        assert_eq!(
            (a.command, a.source.as_deref(), a.local, a.approve),
            (Command::Remove, Some("./x"), true, Some(true))
        );
        assert_eq!(p("update").update, UpdateTarget::SelfOnly);
        assert!(p("update").skipped_note);
        assert_eq!(p("update --extensions").update, UpdateTarget::Packages(None));
        assert_eq!(p("update npm:x").update, UpdateTarget::Packages(Some("npm:x".into())));
        assert_eq!(p("update --extension npm:x").update, UpdateTarget::Packages(Some("npm:x".into())));
        assert_eq!(p("update pi --extensions").update, UpdateTarget::All);
        assert_eq!(p("list -l").error.unwrap().0, "Unknown option -l for \"list\".");
        assert_eq!(p("install a b").error.unwrap().0, "Unexpected argument b.");
        assert_eq!(p("update --extension").error.unwrap().0, "Missing value for --extension.");
        assert_eq!(p("update --all x").error.unwrap().0, text::ALL_SOURCE_CONFLICT);
        assert_eq!(p("update x --self").error.unwrap().0, text::POSITIONAL_CONFLICT);
        assert!(p("install --help").help);
    }
}
