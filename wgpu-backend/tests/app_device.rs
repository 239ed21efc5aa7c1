//! A wgpu application's device shared with Brook, headless: the particles example's scene
//! (its exact code) runs Brook kernels on the app's device and draws the particle stream's
//! buffer as a vertex buffer into a texture, which is read back. Every lit pixel must be a
//! particle's position as Brook computed it, and every particle inside the image must light
//! its pixel.

#[path = "../examples/particles/scene.rs"]
mod scene;

const SIZE: u32 = 256;

#[test]
fn brook_streams_draw_in_the_apps_own_render_pass() {
    // The application's device, made the way any wgpu app makes one.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("an adapter (lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)");
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let scene = scene::Scene::new(&device, &queue, adapter.get_info(), format, 500);
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("frame"),
        size: wgpu::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    for _ in 0..10 {
        scene.frame(&device, &queue, &view, 1.0 / 60.0);
    }
    // The positions after ten steps, as Brook has them.
    let mut p = vec![0.0; 2 * 500];
    scene.brook.write(&scene.positions, None, &mut p).unwrap();
    // The picture.
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(SIZE * SIZE * 4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(SIZE * 4),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
    );
    queue.submit([enc.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let pixels = readback.slice(..).get_mapped_range().unwrap().to_vec();
    let lit = |x: u32, y: u32| pixels[((y * SIZE + x) * 4) as usize] > 128;
    // A point exactly on a pixel edge may be drawn on either side: one pixel of slack.
    let lit_near = |x: u32, y: u32| {
        (-1i32..=1).any(|dy| {
            (-1i32..=1).any(|dx| {
                let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                (0..SIZE as i32).contains(&nx)
                    && (0..SIZE as i32).contains(&ny)
                    && lit(nx as u32, ny as u32)
            })
        })
    };
    // Where each particle lands (clip space to pixel centres, y down).
    let pixel = |px: f32, py: f32| {
        let x = ((px + 1.0) * 0.5 * SIZE as f32).floor() as u32;
        let y = ((1.0 - py) * 0.5 * SIZE as f32).floor() as u32;
        (x.min(SIZE - 1), y.min(SIZE - 1))
    };
    let mut expected = std::collections::HashSet::new();
    for c in p.chunks(2) {
        assert!(
            c[0].abs() <= 0.95 && c[1].abs() <= 0.95,
            "the kernel keeps particles inside: {c:?}"
        );
        let (x, y) = pixel(c[0], c[1]);
        assert!(
            lit_near(x, y),
            "the particle at {c:?} lights pixel ({x}, {y})"
        );
        expected.insert((x, y));
    }
    let mut stray = 0;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let near = (-1i32..=1).any(|dy| {
                (-1i32..=1).any(|dx| {
                    expected
                        .contains(&((x as i32 + dx).max(0) as u32, (y as i32 + dy).max(0) as u32))
                })
            });
            if lit(x, y) && !near {
                stray += 1;
            }
        }
    }
    assert_eq!(stray, 0, "every lit pixel is a particle's");
    assert!(
        expected.len() > 100,
        "the particles are spread out: {}",
        expected.len()
    );
}
