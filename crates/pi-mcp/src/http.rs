//! Streamable HTTP servers. This build connects over stdio only; an HTTP
//! entry is reported as not connected with a clear reason.

use rmcp::service::RunningService;
use rmcp::RoleClient;

use crate::client::{ClientError, Handler};
use crate::text;

/// Connect to `url` (not in this build).
pub(crate) async fn connect(
    _server: &str,
    _url: &str,
    _headers: &[(String, String)],
    _handler: Handler,
) -> Result<(RunningService<RoleClient, Handler>, Option<u32>), ClientError> {
    Err(ClientError::Connect(text::HTTP_UNSUPPORTED.into()))
}
