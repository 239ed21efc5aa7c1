//! streamRead then streamWrite gives back exactly what was read, for every
//! element type, in direct and translated layouts, on both profiles.

mod common;

use std::rc::Rc;

use brook_texture_streams::{ElementFormat, GlContext, MemberFormat, Profile, Stream};

fn round_trip(ctx: &Rc<GlContext>, format: ElementFormat, shape: &[usize]) -> Stream {
    let mut stream = Stream::new(ctx, format, shape).unwrap();
    let floats = stream.layout().len() * stream.format().floats_per_element();
    let data = common::distinct_values(floats);
    stream.read(&data).unwrap();
    let mut back = vec![f32::NAN; floats];
    stream.write(&mut back).unwrap();
    assert_eq!(back, data, "{shape:?} {:?}", stream.format());
    stream
}

fn struct_a_b3_c2() -> ElementFormat {
    let member = |name: &str, components| MemberFormat {
        name: name.into(),
        components,
    };
    ElementFormat::structure(vec![member("a", 1), member("b", 3), member("c", 2)]).unwrap()
}

/// Every element type over a direct 2D, a direct 1D and translated shapes.
fn all_element_types(profile: Profile) {
    let ctx = common::context(profile, Some(16));
    for shape in [
        &[5, 7][..],
        &[16],
        &[40],
        &[3, 5, 7],
        &[2, 3, 5, 7],
        &[2, 20],
    ] {
        for components in 1..=4 {
            round_trip(&ctx, ElementFormat::scalar(components).unwrap(), shape);
        }
        let stream = round_trip(&ctx, struct_a_b3_c2(), shape);
        assert_eq!(stream.textures().len(), 3);
    }
}

#[test]
fn every_element_type_desktop() {
    all_element_types(Profile::Gl33Core);
}

#[test]
fn every_element_type_es() {
    all_element_types(Profile::Es30);
}

#[test]
fn translated_shapes_under_a_lowered_limit() {
    let ctx = common::context(Profile::Gl33Core, Some(64));
    let stream = round_trip(&ctx, ElementFormat::scalar(1).unwrap(), &[1000]);
    assert!(stream.layout().is_translated());
    assert_eq!(
        (stream.layout().width(), stream.layout().height()),
        (32, 32)
    );
    round_trip(&ctx, ElementFormat::scalar(4).unwrap(), &[5, 7, 11]);
    round_trip(&ctx, ElementFormat::scalar(2).unwrap(), &[3, 1000]);

    let ctx = common::context(Profile::Gl33Core, Some(16));
    round_trip(&ctx, ElementFormat::scalar(3).unwrap(), &[2, 3, 5, 7]);
    round_trip(&ctx, ElementFormat::scalar(1).unwrap(), &[256]);
    round_trip(&ctx, ElementFormat::scalar(1).unwrap(), &[255]);
    round_trip(&ctx, ElementFormat::scalar(4).unwrap(), &[17]);
}

/// The texel of each element is where the layout says: read the whole
/// texture back and look each element up by its texel.
#[test]
fn elements_sit_at_their_layout_texels() {
    let ctx = common::context(Profile::Gl33Core, Some(16));
    for shape in [&[3, 5, 7][..], &[6, 9], &[100]] {
        let mut stream = Stream::new(&ctx, ElementFormat::scalar(1).unwrap(), shape).unwrap();
        let layout = stream.layout().clone();
        let data = common::distinct_values(layout.len());
        stream.read(&data).unwrap();
        let whole = brook_texture_streams::TexelRect {
            x: 0,
            y: 0,
            width: layout.width(),
            height: layout.height(),
        };
        let texels = stream.textures()[0].read(whole).unwrap();
        for (linear, value) in data.iter().enumerate() {
            let (x, y) = layout.texel_of(&layout.index_of_linear(linear));
            assert_eq!(
                texels[(y * layout.width() + x) as usize],
                *value,
                "{shape:?} {linear}"
            );
        }
    }
}

#[test]
fn special_floats_survive() {
    let ctx = common::context(Profile::Gl33Core, None);
    let data = [
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0e-30,
        16_777_217.0,
    ];
    // Desktop GL moves each width in its own client format (RED, RG, RGB into RGBA32F):
    // no width may round, flush or lose a value on the way.
    for components in 1..=4u8 {
        let elements = data.len() / usize::from(components);
        let floats = elements * usize::from(components);
        let format = ElementFormat::scalar(components).unwrap();
        let mut stream = Stream::new(&ctx, format, &[elements]).unwrap();
        stream.read(&data[..floats]).unwrap();
        let mut back = vec![0.0f32; floats];
        stream.write(&mut back).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&data[..floats]), "float{components}");
    }
}
