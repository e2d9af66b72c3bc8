//! Messages of the `ls` tool.
