//! Messages of the `find` tool.
