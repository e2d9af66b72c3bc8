//! `pi auth login|logout|print-api-key|print-bearer-token|check`, as the
//! reference's `pi auth --help` describes them. Exit status: 0 done, 1
//! failed (`check`: not ready), 2 `check` found the credential invalid or
//! was used wrongly.

use std::process::ExitCode;

use pi_config::ModelEntry;
use serde_json::{Map, Value};

use super::login;
use pi_runtime::auth::error::ResolveError;
use pi_runtime::auth::resolve::{self, Resolved, Source};
use pi_runtime::auth::{providers, refresh, text};

/// reference: `pi auth --help`.
pub const HELP: &str = "Usage:
  pi auth login <provider> [--api-key] [--no-browser]
  pi auth logout <provider>
  pi auth print-api-key [--provider <provider>] [--model <model>]
  pi auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  pi auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Log in to and out of model providers, print their credentials for external clients, or check that they are ready.
Credentials are stored in ~/.pi/agent/auth.json.

Commands:
  login <provider>        Sign in with an account in the browser, or save an API key, then exit
  logout <provider>       Remove the stored credentials; environment variables and models.json stay
  print-api-key           Print the resolved API key
  print-bearer-token      Print a resolved OAuth bearer token (refreshes if expired)
  check                   Print ready, not_ready, or invalid; exit with 0, 1, or 2

Options for print-api-key, print-bearer-token, and check (at least one is required):
  --provider <provider>   Resolve credentials for a provider
  --model <model>         Resolve credentials from a model

Options for login:
  --api-key               Save an API key instead of signing in with an account
  --no-browser            Do not open a browser; use another sign-in method, e.g. device code

Other options:
  --min-expiry <duration> Minimum remaining token lifetime for print-bearer-token, e.g. 30m or 1h
  --json                  Print the check result as JSON
  --credentials           Emit the credential from check, or include it in JSON output
  --no-refresh            Do not refresh expired OAuth credentials during check
";

/// `pi auth …` (the arguments after `auth`).
pub fn main(args: &[String]) -> ExitCode {
    let Some(cmd) = args.first().map(String::as_str) else {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    };
    let rest = &args[1..];
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(&e.to_string(), 1),
    };
    match cmd {
        "-h" | "--help" | "help" => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        "login" => runtime.block_on(login::main(rest)),
        "logout" => logout(rest),
        "print-api-key" | "print-bearer-token" | "check" => match Query::parse(cmd, rest) {
            Ok(q) => runtime.block_on(q.run()),
            Err((message, code)) => fail(&message, code),
        },
        other => fail(&text::unknown_command(other), 1),
    }
}

fn fail(message: &str, code: u8) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(code)
}

/// A print or check request.
struct Query {
    cmd: String,
    provider: Option<String>,
    model: Option<String>,
    json: bool,
    credentials: bool,
    no_refresh: bool,
    min_expiry_ms: i64,
}

impl Query {
    fn parse(cmd: &str, args: &[String]) -> Result<Self, (String, u8)> {
        let mut q = Query {
            cmd: cmd.into(),
            provider: None,
            model: None,
            json: false,
            credentials: false,
            no_refresh: false,
            min_expiry_ms: 0,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--provider" => q.provider = it.next().cloned(),
                "--model" => q.model = it.next().cloned(),
                "--json" if cmd == "check" => q.json = true,
                "--credentials" if cmd == "check" => q.credentials = true,
                "--no-refresh" if cmd == "check" => q.no_refresh = true,
                "--min-expiry" if cmd == "print-bearer-token" => {
                    q.min_expiry_ms = it
                        .next()
                        .and_then(|d| parse_duration_ms(d))
                        .ok_or_else(|| (text::BAD_MIN_EXPIRY.to_string(), 1))?;
                }
                "--min-expiry" => return Err((text::MIN_EXPIRY_ONLY.into(), 1)),
                s if s.starts_with('-') => return Err((text::unknown_option(s, cmd), 1)),
                _ => return Err((text::ONLY_PROVIDER_AND_MODEL.into(), 2)),
            }
        }
        if q.provider.is_none() && q.model.is_none() {
            return Err(match cmd {
                "check" => (text::CHECK_NEEDS_TARGET.into(), 2),
                _ => (text::PRINT_NEEDS_TARGET.into(), 1),
            });
        }
        Ok(q)
    }

    /// The model entry and provider the request names.
    fn target(
        &self,
        models: &[ModelEntry],
    ) -> Result<(Option<ModelEntry>, String), pi_runtime::model_select::ModelError> {
        if let Some(pattern) = &self.model {
            let r = pi_runtime::model_select::resolve(models, pattern, self.provider.as_deref(), None, false)?;
            let provider = r.entry.provider.clone();
            return Ok((Some(r.entry), provider));
        }
        let p = self.provider.clone().unwrap_or_default();
        Ok((models.iter().find(|m| m.provider == p).cloned(), p))
    }

    async fn run(self) -> ExitCode {
        let models = pi_config::load_models(&pi_config::agent_dir()).unwrap_or_else(|_| pi_config::builtin_models());
        let (entry, provider) = match self.target(&models) {
            Ok(t) => t,
            Err(message) => {
                return match self.cmd.as_str() {
                    "check" => self.report("invalid", self.model.as_deref().unwrap_or(""), None, Some("invalid_state")),
                    _ => fail(&format!("Error: {message}"), 1),
                };
            }
        };
        let known = entry.is_some() || providers::is_known(&provider);
        match self.cmd.as_str() {
            "check" => self.check(entry.as_ref(), &provider, known).await,
            _ if !known => fail(&text::unknown_provider(&provider), 1),
            "print-bearer-token" => self.print_bearer(&provider).await,
            _ => self.print_key(entry.as_ref(), &provider),
        }
    }

    fn resolved(entry: Option<&ModelEntry>, provider: &str) -> Result<Option<Resolved>, ResolveError> {
        let store = resolve::store();
        let file = store.read()?;
        match entry {
            Some(e) => resolve::resolve(e, None, &file),
            None => Ok(resolve::from_store(&file, provider)?),
        }
    }

    fn print_key(&self, entry: Option<&ModelEntry>, provider: &str) -> ExitCode {
        match Self::resolved(entry, provider) {
            Ok(Some(r)) if r.source == Source::StoredOAuth => fail(&text::oauth_not_key(provider), 1),
            Ok(Some(r)) => match r.secret() {
                Some(k) => {
                    println!("{k}");
                    ExitCode::SUCCESS
                }
                None => fail(text::NO_API_KEY, 1),
            },
            Ok(None) => fail(text::NO_API_KEY, 1),
            Err(e) => fail(&format!("Error: {e}"), 1),
        }
    }

    async fn print_bearer(&self, provider: &str) -> ExitCode {
        match refresh::fresh_oauth(&resolve::store(), provider, self.min_expiry_ms).await {
            Ok(Some(o)) if o.expires - pi_ai::oauth::now_ms() >= self.min_expiry_ms => {
                println!("{}", o.access);
                ExitCode::SUCCESS
            }
            Ok(Some(_)) | Err(_) => fail(text::RESOLVE_FAILED, 1),
            Ok(None) => fail(&text::not_oauth(provider), 1),
        }
    }

    async fn check(&self, entry: Option<&ModelEntry>, provider: &str, known: bool) -> ExitCode {
        if !known {
            return self.report("not_ready", provider, None, Some("provider_not_found"));
        }
        let resolved = match Self::resolved(entry, provider) {
            Ok(r) => r,
            Err(_) => return self.report("invalid", provider, None, Some("invalid_state")),
        };
        let Some(mut r) = resolved else {
            return self.report("not_ready", provider, None, Some("credentials_not_configured"));
        };
        if r.source == Source::StoredOAuth && !self.no_refresh {
            match refresh::fresh_oauth(&resolve::store(), provider, 0).await {
                Ok(Some(o)) => r.api_key = Some(o.access),
                _ => return self.report("invalid", provider, None, Some("invalid_state")),
            }
        }
        let kind = if r.source == Source::StoredOAuth { "oauth" } else { "api_key" };
        self.report("ready", provider, Some((kind, r.secret().unwrap_or_default())), None)
    }

    /// Print a check's result and exit with its status.
    fn report(&self, status: &str, provider: &str, ready: Option<(&str, String)>, reason: Option<&str>) -> ExitCode {
        let code = match status {
            "ready" => 0,
            "not_ready" => 1,
            _ => 2,
        };
        if self.json {
            let mut out = Map::new();
            out.insert("status".into(), status.into());
            out.insert("provider".into(), provider.into());
            if let Some((kind, secret)) = &ready {
                out.insert("authType".into(), (*kind).into());
                if self.credentials {
                    out.insert("credentials".into(), secret.clone().into());
                }
            }
            if let Some(reason) = reason {
                out.insert("reason".into(), reason.into());
            }
            println!("{}", Value::Object(out));
        } else {
            match (&ready, self.credentials) {
                (Some((_, secret)), true) => println!("{secret}"),
                _ => println!("{status}"),
            }
        }
        ExitCode::from(code)
    }
}

/// `30m`, `1h`, `90s`, `500ms` in milliseconds.
fn parse_duration_ms(s: &str) -> Option<i64> {
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = s.split_at(split);
    let n: i64 = n.parse().ok()?;
    let unit_ms = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    n.checked_mul(unit_ms)
}

/// `pi auth logout <provider>`.
fn logout(args: &[String]) -> ExitCode {
    let [provider] = args else { return fail(text::LOGOUT_USAGE, 1) };
    let store = resolve::store();
    let removed = store.update(|f| {
        let stored = f.providers().iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let kind = f.get(provider).ok().flatten().map(|c| c.kind());
        let had = f.remove(provider);
        (had, kind, stored)
    });
    let name = providers::display_name(provider);
    match removed {
        Ok((true, kind, _)) => {
            println!("{}", text::removed(kind.unwrap_or("api_key"), &name));
            ExitCode::SUCCESS
        }
        Ok((false, _, stored)) if !providers::is_known(provider) => {
            eprintln!("{}", text::unknown_login_provider(provider));
            eprintln!("Stored credentials: {}", if stored.is_empty() { "none".into() } else { stored.join(", ") });
            ExitCode::from(1)
        }
        Ok((false, _, _)) => {
            println!("{}", text::nothing_stored(&name));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e.to_string(), 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("30m"), Some(1_800_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("bogus"), None);
        assert_eq!(parse_duration_ms("5"), None);
        assert_eq!(parse_duration_ms("99999999999999999h"), None);
    }
}
