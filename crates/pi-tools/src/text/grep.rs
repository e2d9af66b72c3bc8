//! Messages of the `grep` tool.
