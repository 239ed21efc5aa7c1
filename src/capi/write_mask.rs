//! The original's C++ `write_mask` through the C ABI: a handle to a [`WriteMask`] that
//! `include/brook.hpp`'s `brook::write_mask` shares between its copies. The mask's test is
//! `brook_write_mask_enable` (`streamEnableWriteMask`), as on the original's DX9 runtime,
//! whose `enableTest` and `streamEnableWriteMask` both switched the one depth test.

use super::runtime::{fail, with_runtime};
use super::stream::release;
use super::threads::Owner;
use crate::{BrookError, WriteMask};

/// A write mask handle, and the thread whose runtime made it.
pub struct BrookWriteMask(WriteMask, Owner);

/// `write_mask::create(h, w)`: a mask of `h` rows of `w`, every element open.
#[no_mangle]
pub extern "C" fn brook_write_mask_new(h: i64, w: i64) -> *mut BrookWriteMask {
    let mask = with_runtime(|rt| {
        let shape = [h, w].map(usize::try_from);
        match shape {
            [Ok(h), Ok(w)] => rt.create_write_mask(&[h, w]),
            _ => Err(BrookError::Usage(format!(
                "write_mask::create({h}, {w}): the extents must not be negative"
            ))),
        }
    });
    Box::into_raw(Box::new(BrookWriteMask(mask, Owner::here())))
}

/// Frees a mask handle (null is ignored); a bound mask stays bound until unbound.
///
/// # Safety
/// `m` is null or a mask from this ABI, not freed before.
#[no_mangle]
pub unsafe extern "C" fn brook_write_mask_free(m: *mut BrookWriteMask) {
    if !m.is_null() {
        let mask = Box::from_raw(m);
        let owner = mask.1;
        release(mask, owner);
    }
}

/// `write_mask::bind`.
///
/// # Safety
/// `m` is a live mask.
#[no_mangle]
pub unsafe extern "C" fn brook_write_mask_bind(m: *const BrookWriteMask) {
    let mask = &mask_ref(m).0;
    with_runtime(|rt| rt.bind_write_mask(mask))
}

/// `write_mask::unbind`.
#[no_mangle]
pub extern "C" fn brook_write_mask_unbind() {
    with_runtime(|rt| {
        rt.unbind_write_mask();
        Ok(())
    })
}

/// `write_mask::clear`.
///
/// # Safety
/// `m` is a live mask.
#[no_mangle]
pub unsafe extern "C" fn brook_write_mask_clear(m: *const BrookWriteMask) {
    let mask = &mask_ref(m).0;
    with_runtime(|rt| rt.clear_write_mask(mask))
}

/// `write_mask::enableSet` (`on` non-zero) and `disableSet`.
#[no_mangle]
pub extern "C" fn brook_write_mask_setting(on: i32) {
    with_runtime(|rt| {
        if on != 0 {
            rt.enable_write_mask_set()
        } else {
            rt.disable_write_mask_set()
        }
    })
}

/// The mask, checked to be this thread's runtime's.
///
/// # Safety
/// `m` is null or a live mask.
unsafe fn mask_ref<'a>(m: *const BrookWriteMask) -> &'a BrookWriteMask {
    let mask = m
        .as_ref()
        .unwrap_or_else(|| fail("the write mask is a null pointer"));
    mask.1.check("the write mask");
    mask
}
