//! The memory limit of an engine: an allocator that counts what QuickJS holds
//! and refuses allocations beyond the limit, noting that it did. QuickJS turns
//! a refusal into `InternalError: out of memory` (or, when even that cannot be
//! allocated, a bare `null` exception), so the host needs its own record of
//! the failure to stop the extension with a clear message.
//!
//! One of the three documented exceptions to the workspace's `unsafe_code`
//! lint (the others: pi-cli's SIGPIPE reset, pi-tools' `setsid` before exec).
#![allow(unsafe_code)]

use std::cell::Cell;
use std::rc::Rc;

use rquickjs::allocator::{Allocator, RustAllocator};

/// Shared view of an engine's heap: bytes in use and whether the limit was hit.
#[derive(Clone, Default)]
pub(crate) struct HeapState {
    used: Rc<Cell<usize>>,
    hit: Rc<Cell<bool>>,
}

impl HeapState {
    /// Whether an allocation was refused since the last call; clears the mark.
    pub(crate) fn take_hit(&self) -> bool {
        self.hit.replace(false)
    }
}

/// Rust's allocator with a byte limit.
pub(crate) struct LimitedAllocator {
    limit: usize,
    state: HeapState,
}

impl LimitedAllocator {
    pub(crate) fn new(limit: usize, state: HeapState) -> Self {
        LimitedAllocator { limit, state }
    }

    fn admit(&self, extra: usize) -> bool {
        let ok = self.state.used.get().checked_add(extra).is_some_and(|n| n <= self.limit);
        if !ok {
            self.state.hit.set(true);
        }
        ok
    }
}

// SAFETY: every method delegates to `RustAllocator`, which upholds the trait's
// contract; this wrapper only refuses some requests (returning null, which the
// contract allows) and keeps a byte count.
unsafe impl Allocator for LimitedAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.admit(size) {
            return std::ptr::null_mut();
        }
        let p = RustAllocator.alloc(size);
        if !p.is_null() {
            // SAFETY: `p` was just allocated by RustAllocator.
            let n = unsafe { RustAllocator::usable_size(p) };
            self.state.used.set(self.state.used.get() + n);
        }
        p
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
        if total == 0 {
            // RustAllocator answers an empty calloc with null, which QuickJS would read as out of memory.
            return self.alloc(0);
        }
        if !self.admit(total) {
            return std::ptr::null_mut();
        }
        let p = RustAllocator.calloc(count, size);
        if !p.is_null() {
            // SAFETY: `p` was just allocated by RustAllocator.
            let n = unsafe { RustAllocator::usable_size(p) };
            self.state.used.set(self.state.used.get() + n);
        }
        p
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        // SAFETY: the caller passes a pointer from this allocator, i.e. from RustAllocator.
        let n = unsafe { RustAllocator::usable_size(ptr) };
        self.state.used.set(self.state.used.get().saturating_sub(n));
        // SAFETY: as above.
        unsafe { RustAllocator.dealloc(ptr) }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        // SAFETY: the caller passes a pointer from this allocator, i.e. from RustAllocator.
        let old = unsafe { RustAllocator::usable_size(ptr) };
        if new_size > old && !self.admit(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above; on failure the old block stays valid and counted.
        let p = unsafe { RustAllocator.realloc(ptr, new_size) };
        if !p.is_null() {
            // SAFETY: `p` was just returned by RustAllocator.
            let n = unsafe { RustAllocator::usable_size(p) };
            self.state.used.set(self.state.used.get().saturating_sub(old) + n);
        }
        p
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: the caller passes a pointer from this allocator, i.e. from RustAllocator.
        unsafe { RustAllocator::usable_size(ptr) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_beyond_the_limit_and_counts_frees() {
        let state = HeapState::default();
        let mut a = LimitedAllocator::new(1000, state.clone());
        let p = a.alloc(600);
        assert!(!p.is_null());
        assert!(a.alloc(600).is_null());
        assert!(state.take_hit());
        assert!(!state.take_hit());
        let p = unsafe { a.realloc(p, 900) };
        assert!(!p.is_null());
        assert!(unsafe { a.realloc(p, 2000) }.is_null());
        assert!(state.take_hit());
        unsafe { a.dealloc(p) };
        assert_eq!(state.used.get(), 0);
        let q = a.calloc(10, 10);
        assert!(!q.is_null());
        unsafe { a.dealloc(q) };
        assert_eq!(state.used.get(), 0);
    }
}
