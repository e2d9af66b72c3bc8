//! The local page the browser is sent back to after signing in: a small
//! HTTP listener on 127.0.0.1 that takes the first redirect carrying the
//! expected `state` and answers the browser with a short page.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::OAuthError;

/// The most of a request's head that is read.
pub const REQUEST_HEAD_LIMIT: usize = 8 * 1024;
/// A connection that sends nothing for this long is dropped.
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(5);
/// The page shown after a successful sign-in.
pub const SUCCESS_PAGE: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Authentication successful</title></head><body><p>Authentication successful. You can close this window and return to pi.</p></body></html>";
/// The page shown when the redirect carries an error or a wrong state.
pub const FAILURE_PAGE: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Authentication failed</title></head><body><p>Authentication failed. Return to pi for details.</p></body></html>";

/// A listener for the redirect.
#[derive(Debug)]
pub struct Callback {
    listener: TcpListener,
    port: u16,
    path: String,
}

/// What one redirect carried.
enum Outcome {
    Code(String),
    Failed(String),
    Ignored,
}

impl Callback {
    /// Listen on `127.0.0.1:port` for `path` (port 0 picks a free port).
    pub async fn bind(port: u16, path: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self { listener, port, path: path.to_string() })
    }

    /// The `redirect_uri` to send to the provider.
    pub fn redirect_uri(&self) -> String {
        format!("http://localhost:{}{}", self.port, self.path)
    }

    /// Wait for the redirect whose `state` is `state`; answers its `code`.
    /// Requests for other paths are answered 404 and ignored.
    pub async fn code(&self, state: &str) -> Result<String, OAuthError> {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else { continue };
            match tokio::time::timeout(CONNECTION_TIMEOUT, self.serve(stream, state)).await {
                Ok(Outcome::Code(code)) => return Ok(code),
                Ok(Outcome::Failed(why)) => return Err(OAuthError::Login(why)),
                Ok(Outcome::Ignored) | Err(_) => {}
            }
        }
    }

    async fn serve(&self, mut stream: TcpStream, state: &str) -> Outcome {
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < REQUEST_HEAD_LIMIT {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&head);
        let target = text.lines().next().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("");
        let outcome = self.judge(target, state);
        let (status, page) = match &outcome {
            Outcome::Code(_) => ("200 OK", SUCCESS_PAGE),
            Outcome::Failed(_) => ("400 Bad Request", FAILURE_PAGE),
            Outcome::Ignored => ("404 Not Found", ""),
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        let _ = stream.shutdown().await;
        outcome
    }

    fn judge(&self, target: &str, state: &str) -> Outcome {
        let Ok(u) = url::Url::parse(&format!("http://localhost{target}")) else { return Outcome::Ignored };
        if u.path() != self.path {
            return Outcome::Ignored;
        }
        let get = |name: &str| u.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        if let Some(error) = get("error") {
            let detail = get("error_description").map(|d| format!(": {d}")).unwrap_or_default();
            return Outcome::Failed(format!("The sign-in was refused ({error}{detail})."));
        }
        match (get("code"), get("state")) {
            (Some(code), Some(s)) if s == state && !code.is_empty() => Outcome::Code(code),
            (Some(_), _) => Outcome::Failed("The sign-in answer's state does not match; try again.".into()),
            (None, _) => Outcome::Ignored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        s.write_all(format!("GET {target} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn takes_the_code_with_the_right_state() {
        let cb = Callback::bind(0, "/callback").await.unwrap();
        let port = cb.port;
        assert_eq!(cb.redirect_uri(), format!("http://localhost:{port}/callback"));
        let client = tokio::spawn(async move {
            assert!(get(port, "/favicon.ico").await.starts_with("HTTP/1.1 404"));
            assert!(get(port, "/callback?code=C1&state=S").await.contains("Authentication successful"));
        });
        assert_eq!(cb.code("S").await.unwrap(), "C1");
        client.await.unwrap();
    }

    #[tokio::test]
    async fn a_wrong_state_or_an_error_fails() {
        let cb = Callback::bind(0, "/callback").await.unwrap();
        let port = cb.port;
        let client = tokio::spawn(async move { get(port, "/callback?code=C1&state=other").await });
        assert!(cb.code("S").await.unwrap_err().to_string().contains("state does not match"));
        assert!(client.await.unwrap().starts_with("HTTP/1.1 400"));
        let client = tokio::spawn(async move { get(port, "/callback?error=access_denied").await });
        assert!(cb.code("S").await.unwrap_err().to_string().contains("refused (access_denied)"));
        client.await.unwrap();
    }
}
