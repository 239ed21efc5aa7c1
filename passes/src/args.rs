//! The arguments of a kernel call on GL, and the shader variant they select.

use brook_core::call::class_name;
use brook_glsl::{Access, OutputRegion, Placement, Resize, Variant, Wrap};
use brook_ir::{Function, ParamClass};
use brook_texture_streams::{Domain, IterSpec, Layout, Stream};

/// A stream argument: a whole stream, or a domain of it (`s.domain(lo, hi)`).
#[derive(Clone, Copy)]
pub struct StreamArg<'a> {
    pub stream: &'a Stream,
    /// Bounds outermost dimension first, as [`Domain`] keeps them; `None` for the whole stream.
    pub domain: Option<&'a Domain>,
}

impl<'a> StreamArg<'a> {
    pub fn whole(stream: &'a Stream) -> StreamArg<'a> {
        StreamArg {
            stream,
            domain: None,
        }
    }

    /// The domain, unless it covers the whole stream (then the stream is passed as itself).
    pub fn region(&self) -> Option<&'a Domain> {
        self.domain
            .filter(|d| d.lo().iter().any(|l| *l != 0) || d.hi() != self.stream.layout().shape())
    }

    /// The shape the kernel sees: the domain's, or the stream's.
    pub fn shape(&self) -> Vec<usize> {
        match self.region() {
            Some(d) => d.shape(),
            None => self.stream.layout().shape().to_vec(),
        }
    }

    /// The first element the kernel sees, in the whole stream (outermost first).
    pub fn lo(&self) -> Vec<usize> {
        match self.region() {
            Some(d) => d.lo().to_vec(),
            None => vec![0; self.stream.layout().rank()],
        }
    }

    /// How the stream's elements lie in its texture.
    pub fn placement(&self) -> Placement {
        placement(self.stream.layout())
    }

    /// Whether two arguments put their elements at the same texels: the same stream shape and
    /// the same domain, so one can be read at the other's fragment.
    fn same_place(&self, other: &StreamArg) -> bool {
        self.stream.layout().shape() == other.stream.layout().shape()
            && self.region() == other.region()
    }
}

impl<'a> From<&'a Stream> for StreamArg<'a> {
    fn from(stream: &'a Stream) -> Self {
        StreamArg::whole(stream)
    }
}

/// One argument per kernel parameter, in order.
#[derive(Clone, Copy)]
pub enum KernelArg<'a> {
    /// An input stream (`T a<>`), read at each output element (resized if its shape differs).
    Stream(StreamArg<'a>),
    /// An iterator stream passed to a `T a<>` or `iter T a<>` parameter.
    Iter(&'a IterSpec),
    /// A gather stream (`T a[]`).
    Gather(StreamArg<'a>),
    /// A constant's floats in C layout (a `float4` is 4 floats; an `int` its value).
    Constant(&'a [f32]),
    /// An output stream (`out T a<>`); with a domain, only that region is written.
    Out(StreamArg<'a>),
}

impl<'a> KernelArg<'a> {
    fn describe(&self) -> &'static str {
        match self {
            KernelArg::Stream(_) => "an input stream",
            KernelArg::Iter(_) => "an iterator",
            KernelArg::Gather(_) => "a gather stream",
            KernelArg::Constant(_) => "a constant",
            KernelArg::Out(_) => "an output stream",
        }
    }

    /// The stream of a stream argument.
    pub fn stream(&self) -> Option<StreamArg<'a>> {
        match self {
            KernelArg::Stream(s) | KernelArg::Gather(s) | KernelArg::Out(s) => Some(*s),
            KernelArg::Iter(_) | KernelArg::Constant(_) => None,
        }
    }
}

/// How a layout's elements lie in its texture, as the generated code reaches them.
pub fn placement(layout: &Layout) -> Placement {
    if layout.is_translated() {
        Placement::Translated(Wrap::of(layout.width()))
    } else {
        Placement::Direct
    }
}

/// The shader variant for these arguments, or why they do not fit the kernel's parameters.
/// `output` is the first output argument; all outputs are at its place (checked by the caller).
pub fn variant_for(
    func: &Function,
    args: &[KernelArg],
    output: &StreamArg,
) -> Result<Variant, String> {
    if args.len() != func.params.len() {
        return Err(format!(
            "takes {} arguments but {} were given",
            func.params.len(),
            args.len()
        ));
    }
    let mut params = Vec::with_capacity(args.len());
    let out_shape = output.shape();
    for (p, arg) in func.params.iter().zip(args) {
        let access = match (p.class, arg) {
            (ParamClass::Stream, KernelArg::Stream(s)) if s.same_place(output) => {
                Access::AtFragment
            }
            (ParamClass::Stream, KernelArg::Stream(s)) => {
                let resize = Resize::between(&out_shape, &s.shape());
                if s.region().is_some() {
                    Access::Domain(resize, s.placement())
                } else {
                    Access::Resized(resize, s.placement())
                }
            }
            (ParamClass::Stream | ParamClass::Iter, KernelArg::Iter(it)) => {
                let resize = Resize::between(&out_shape, it.shape());
                if it.shape().len() >= 2 {
                    Access::IterNd(resize)
                } else {
                    Access::Iter1(resize)
                }
            }
            (ParamClass::Gather { .. }, KernelArg::Gather(g)) => {
                let rank = g.stream.layout().rank() as u8;
                match (g.region(), g.placement()) {
                    (Some(_), placement) => Access::GatherDomain { rank, placement },
                    (None, Placement::Translated(wrap)) => Access::GatherTranslated { rank, wrap },
                    (None, Placement::Direct) => Access::GatherDirect { rank },
                }
            }
            (ParamClass::Constant, KernelArg::Constant(_))
            | (ParamClass::Out | ParamClass::Vout { .. }, KernelArg::Out(_)) => Access::Value,
            (class, arg) => {
                return Err(format!(
                    "parameter `{}` is {} but the call passes {}",
                    p.name,
                    class_name(class),
                    arg.describe()
                ))
            }
        };
        params.push(access);
    }
    let rank = output.stream.layout().rank() as u8;
    let output = match (output.region(), output.placement()) {
        (None, Placement::Translated(_)) => OutputRegion::Whole { rank },
        (None, Placement::Direct) => OutputRegion::Direct,
        (Some(_), Placement::Translated(_)) => OutputRegion::Masked { rank },
        (Some(_), Placement::Direct) => OutputRegion::Viewport,
    };
    Ok(Variant { params, output })
}
