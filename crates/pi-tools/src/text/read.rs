//! Messages of the `read` tool.
