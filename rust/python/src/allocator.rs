//! mimalloc as the global allocator, entered by its plain functions whenever the layout asks
//! for no more alignment than every mimalloc block has.
//!
//! `mimalloc::MiMalloc` calls the `*_aligned` functions for every layout; their alignment
//! checks cost about a third of a small allocation, and batch extraction makes tens of
//! allocations per line. Every mimalloc block is aligned to at least a machine word, so
//! layouts aligned to a word or less take `mi_malloc`/`mi_realloc`, the rest the aligned
//! functions.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as ffi;

/// The alignment every mimalloc block has (`MI_INTPTR_SIZE`).
const BLOCK_ALIGN: usize = std::mem::size_of::<usize>();

pub struct MiMalloc;

// SAFETY: each function forwards to mimalloc with a size and an alignment it honours; blocks
// from either family are freed and resized by the same `mi_free`/`mi_realloc*`.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            ffi::mi_malloc(layout.size()).cast()
        } else {
            ffi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            ffi::mi_zalloc(layout.size()).cast()
        } else {
            ffi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        ffi::mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            ffi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            ffi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}
