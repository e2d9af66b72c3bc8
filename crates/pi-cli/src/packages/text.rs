//! Every user-visible line of the package commands and of installing
//! packages at start-up. Lines marked "reference" are the reference's words
//! (Pi 1.6.0), so scripts written against it keep working.

use std::path::Path;

/// reference: usage of `pi install`.
pub const INSTALL_USAGE: &str = "pi install <source> [-l] [--approve|--no-approve]";
/// reference: usage of `pi remove`.
pub const REMOVE_USAGE: &str = "pi remove <source> [-l] [--approve|--no-approve]";
/// reference: usage of `pi update`.
pub const UPDATE_USAGE: &str = "pi update [source|self|pi] [--self|--extensions|--models|--all] [--extension <source>] [--approve|--no-approve] [--force]";
/// reference: usage of `pi list`.
pub const LIST_USAGE: &str = "pi list [--approve|--no-approve]";

/// `pi install --help`.
pub const INSTALL_HELP: &str =
    "Install a package (npm:<name>[@<version>], git:<host>/<path>[@<ref>], a git URL, or a local path)
and add it to the packages of the user settings, or of the project's with -l.

Options:
  -l, --local        Use the project's .pi/settings.json
  -a, --approve      Trust the project's files for this command
  -na, --no-approve  Ignore the project's files for this command
";
/// `pi remove --help`.
pub const REMOVE_HELP: &str =
    "Remove a package (and its install folder) and its entry in settings. `pi uninstall` is the same command.

Options:
  -l, --local        Use the project's .pi/settings.json
  -a, --approve      Trust the project's files for this command
  -na, --no-approve  Ignore the project's files for this command
";
/// `pi update --help`.
pub const UPDATE_HELP: &str =
    "Update installed packages (--extensions, or one <source>). This build cannot update pi itself.

Options:
  --extensions          Update every installed package
  --extension <source>  Update one package
  --self, --all         Also update pi (not available in this build)
  --models              Refresh model catalogs (not available in this build)
  -a, --approve         Trust the project's files for this command
  -na, --no-approve     Ignore the project's files for this command
";
/// `pi list --help`.
pub const LIST_HELP: &str = "List the packages of the user settings and (for a trusted project) the project settings.

Options:
  -a, --approve      Trust the project's files for this command
  -na, --no-approve  Ignore the project's files for this command
";

/// reference: `install`/`remove` without a source.
pub fn missing_source(command: &str) -> String {
    format!("Missing {command} source.")
}

/// reference: the usage line after an error.
pub fn usage_line(usage: &str) -> String {
    format!("Usage: {usage}")
}

/// reference: an option the command does not take.
pub fn unknown_option(option: &str, command: &str) -> String {
    format!("Unknown option {option} for \"{command}\".")
}

/// reference: the hint after an unknown option.
pub fn unknown_option_hint(usage: &str) -> String {
    format!("Use \"pi --help\" or \"{usage}\".")
}

/// reference: an option without its value.
pub fn missing_value(option: &str) -> String {
    format!("Missing value for {option}.")
}

/// reference: a second positional argument.
pub fn unexpected_argument(arg: &str) -> String {
    format!("Unexpected argument {arg}.")
}

/// reference: `--extension` given twice.
pub const EXTENSION_ONCE: &str = "--extension can only be provided once";
/// reference: `--all` with another target.
pub const ALL_CONFLICT: &str = "--all cannot be combined with --self, --extensions, --models, or --extension";
/// reference: `--all` with a source.
pub const ALL_SOURCE_CONFLICT: &str = "--all cannot be combined with a positional source";
/// reference: `--models` with another target.
pub const MODELS_CONFLICT: &str = "--models cannot be combined with --self, --extensions, --all, or --extension";
/// reference: `--models` with a source.
pub const MODELS_SOURCE_CONFLICT: &str = "--models cannot be combined with a positional source";
/// reference: `--extension` with another target.
pub const EXTENSION_CONFLICT: &str = "--extension cannot be combined with --self, --extensions, or --all";
/// reference: `--extension` with a source.
pub const EXTENSION_SOURCE_CONFLICT: &str = "--extension cannot be combined with a positional source";
/// reference: a source with a flag target.
pub const POSITIONAL_CONFLICT: &str =
    "positional update targets cannot be combined with --self, --extensions, or --all";

/// reference: `-l` for an untrusted project.
pub const PROJECT_NOT_TRUSTED: &str = "Project is not trusted. Use --approve to modify local package config.";

/// reference: before an install.
pub fn installing(source: &str) -> String {
    format!("Installing {source}...")
}
/// reference: after an install.
pub fn installed(source: &str) -> String {
    format!("Installed {source}")
}
/// reference: before a removal.
pub fn removing(source: &str) -> String {
    format!("Removing {source}...")
}
/// reference: after a removal.
pub fn removed(source: &str) -> String {
    format!("Removed {source}")
}
/// reference: before a package update.
pub fn updating(source: &str) -> String {
    format!("Updating {source}...")
}

/// reference: a source that matches no configured package.
pub fn no_matching_package(source: &str) -> String {
    format!("No matching package found for {source}")
}

/// reference: ... with the configured source it probably means.
pub fn no_matching_package_suggestion(source: &str, suggestion: &str) -> String {
    format!("No matching package found for {source}. Did you mean {suggestion}?")
}

/// reference: a failure, on standard error.
pub fn error_line(message: &str) -> String {
    format!("Error: {message}")
}

/// reference: `pi list` with nothing configured.
pub const NO_PACKAGES: &str = "No packages installed.";
/// reference: heading of the user's packages.
pub const USER_PACKAGES: &str = "User packages:";
/// reference: heading of the project's packages.
pub const PROJECT_PACKAGES: &str = "Project packages:";
/// reference: an object entry in `pi list`.
pub const FILTERED_SUFFIX: &str = " (filtered)";

/// reference: a local source that does not exist.
pub fn path_missing(path: &Path) -> String {
    format!("Path does not exist: {}", path.display())
}

/// reference: a command that exited with a failure status.
pub fn command_failed(program: &str, args: &[String], code: Option<i32>) -> String {
    let code = code.map_or_else(|| "null".to_string(), |c| c.to_string());
    format!("{program} {} failed with code {code}", args.join(" "))
}

/// A command that could not be started (Node says `spawn <program> ENOENT`).
pub fn command_not_started(program: &str, err: &std::io::Error) -> String {
    format!("Failed to run {program}: {err}")
}

/// reference: `npmCommand` with an empty first entry.
pub const INVALID_NPM_COMMAND: &str = "Invalid npmCommand: first array entry must be a non-empty command";

/// A file pi writes while installing could not be written.
pub fn write_failed(path: &Path, err: &std::io::Error) -> String {
    format!("Failed to write {}: {err}", path.display())
}

/// reference: `pi update` with no package changed.
pub const UP_TO_DATE: &str = "Packages are already up to date";
/// reference: `pi update <source>` with nothing changed.
pub fn source_up_to_date(source: &str) -> String {
    format!("{source} is already up to date")
}
/// reference: heading of the updated packages.
pub fn updated_count(count: usize) -> String {
    format!("Updated {count} package{}:", if count == 1 { "" } else { "s" })
}
/// reference: one updated package (`from`/`to`: versions, or 7-digit commits).
pub fn updated_line(source: &str, project: bool, from: &str, to: &str) -> String {
    format!("{source}{} {from} -> {to}", if project { " (project)" } else { "" })
}
/// reference: a version that was not there.
pub const NO_VERSION: &str = "(none)";
/// reference: `PI_OFFLINE` set.
pub const OFFLINE_SKIPPED: &str = "Skipped package updates (offline mode)";
/// reference: `pi update` without a target.
pub const EXTENSIONS_SKIPPED: &str = "Extensions are skipped. Run pi update --extensions to update extensions.";
/// Ours: the reference downloads a new release of itself here.
pub const SELF_UPDATE_UNAVAILABLE: &str = "This build of pi cannot update itself; update it the way it was installed. Use pi update --extensions for packages.";
/// Ours: the reference refreshes model catalogs from pi.dev here.
pub const MODELS_UPDATE_UNAVAILABLE: &str = "This build of pi has no model catalog to refresh.";

/// reference: a configured package that could not be installed at start-up.
pub fn install_warning(source: &str, project: bool, message: &str) -> String {
    let local = if project { " --local" } else { "" };
    format!(
        "Extension package \"{source}\": failed to install ({message}). Run \"pi remove {source}{local}\" to remove it from settings.json."
    )
}

/// reference: the `.gitignore` pi writes in its npm and git folders.
pub const INSTALL_GITIGNORE: &str = "*\n!.gitignore\n";
/// reference: the `package.json` of pi's npm folder.
pub const NPM_PROJECT_JSON: &str = "{\n  \"name\": \"pi-extensions\",\n  \"private\": true\n}";

/// reference: a package given with `-e` that could not be installed.
pub fn temporary_warning(source: &str, message: &str) -> String {
    format!("Extension package \"{source}\": failed to install ({message}). Check the source and try again.")
}

/// Ours: `-e npm:…`/`git:…` offline, never installed before.
pub const OFFLINE_NOT_CACHED: &str = "offline, and not installed before";

/// `pi config --help`.
pub const CONFIG_HELP: &str = "Usage:
  pi config [-l] [--approve|--no-approve]

Switch package resources and built-in extensions on and off.
Starts with your settings (~/.pi/agent/settings.json); Tab switches to the
project's overrides (.pi/settings.json).

Options:
  -l, --local       Start with the project's overrides (.pi/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command
";
/// `pi config` without a terminal.
pub const CONFIG_NEEDS_TERMINAL: &str = "Error: pi config needs a terminal (standard input and output). Edit ~/.pi/agent/settings.json instead (docs/packages.md).";

/// `pi config` with an option it does not take.
pub fn config_unknown_option(option: &str) -> String {
    format!("Error: Unknown option for pi config: {option}\nUsage: pi config [-l] [--approve|--no-approve]")
}
/// The screen's title in global mode.
pub const CONFIG_GLOBAL_TITLE: &str = "Global Resources";
/// Its keys in global mode.
pub const CONFIG_GLOBAL_HINT: &str = "tab switch mode · space toggle · esc close";
/// The file global mode writes.
pub const CONFIG_GLOBAL_PATH: &str = "~/.pi/agent/settings.json";
/// The screen's title in project mode.
pub const CONFIG_PROJECT_TITLE: &str = "Project Local Resources";
/// Its keys in project mode.
pub const CONFIG_PROJECT_HINT: &str = "tab switch mode · space cycle inherit/+/- · esc close";
/// The file project mode writes.
pub const CONFIG_PROJECT_PATH: &str = ".pi/settings.json · inherited global resources are dimmed";
/// A resource the project inherits.
pub const CONFIG_INHERITED: &str = "inherited global";
/// A resource the project loads (`+`).
pub const CONFIG_PROJECT_LOAD: &str = "project load";
/// A resource the project leaves out (`-`).
pub const CONFIG_PROJECT_UNLOAD: &str = "project unload";
/// A filter that matches nothing.
pub const CONFIG_NOTHING: &str = "  No matching resources";
