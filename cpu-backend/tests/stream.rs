//! Host storage: layout, shape validation, streamRead/streamWrite.

mod support;
use brook_core::StreamError;
use support::*;

#[test]
fn layout_and_accessors() {
    let s = CpuStream::new(&[1, 3], &[2, 3]).unwrap();
    assert_eq!(s.shape(), &[2, 3]);
    assert_eq!(s.len(), 6);
    assert_eq!(s.floats_per_element(), 4);
    assert_eq!(s.data().len(), 24);
    assert!(s.data().iter().all(|&x| x == 0.0));
    assert_eq!(s.widths(), &[1, 3]);
}

#[test]
fn read_and_write_round_trip() {
    let mut s = CpuStream::new(&[2], &[3]).unwrap();
    let src = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    s.read(&src).unwrap();
    assert_eq!(s.element(1), &[3.0, 4.0]);
    let mut dst = [0.0; 6];
    s.write(&mut dst).unwrap();
    assert_eq!(dst, src);
    s.data_mut()[0] = 9.0;
    assert_eq!(s.data()[0], 9.0);
}

#[test]
fn wrong_host_sizes_are_errors() {
    let mut s = CpuStream::new(&[4], &[2]).unwrap();
    let err = s.read(&[0.0; 7]).unwrap_err();
    assert_eq!(
        err,
        CpuError::Stream(StreamError::Size {
            expected: 8,
            got: 7
        })
    );
    assert!(err.to_string().contains("exactly 8"), "{err}");
    assert!(s.write(&mut [0.0; 9]).is_err());
}

#[test]
fn invalid_shapes_are_errors() {
    assert!(matches!(
        CpuStream::new(&[1], &[]),
        Err(CpuError::Stream(StreamError::Shape(_)))
    ));
    assert!(CpuStream::new(&[1], &[1, 1, 1, 1, 1]).is_err());
    let err = CpuStream::new(&[1], &[3, 0]).unwrap_err();
    assert!(err.to_string().contains("[3, 0]"), "{err}");
    assert!(CpuStream::new(&[], &[3]).is_err());
    assert!(CpuStream::new(&[0], &[3]).is_err());
    assert!(CpuStream::new(&[1], &[usize::MAX, 2]).is_err());
    assert!(CpuStream::new(&[1], &[2, 3, 4, 5]).is_ok());
}
