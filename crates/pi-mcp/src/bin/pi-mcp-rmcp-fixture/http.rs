//! The fixture over streamable HTTP: rmcp's `StreamableHttpService` served
//! by hyper on 127.0.0.1 (a free port, printed first on standard output),
//! or, for `http401`, a server that answers 401 to every request.

use std::io::Write;
use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::Fixture;

/// Serve `fixture` until the process is killed; `unauthorized`: answer 401.
pub(crate) async fn serve(fixture: Fixture, unauthorized: bool) {
    let Ok(listener) = tokio::net::TcpListener::bind("127.0.0.1:0").await else { std::process::exit(2) };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{port}");
    let _ = out.flush();
    let service = StreamableHttpService::new(
        move || Ok(fixture.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let io = TokioIo::new(stream);
        if unauthorized {
            let denied = hyper::service::service_fn(|_req| async {
                hyper::Response::builder().status(hyper::StatusCode::UNAUTHORIZED).body(String::new())
            });
            tokio::spawn(http1::Builder::new().serve_connection(io, denied));
        } else {
            let svc = TowerToHyperService::new(service.clone());
            tokio::spawn(http1::Builder::new().serve_connection(io, svc));
        }
    }
}
