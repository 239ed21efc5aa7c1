//! Stream element formats named the Brook way: `float`..`float4`, or a struct of the program
//! (as host code declares `Ray rays<100>;`).

use brook_frontend::ir::{Scalar, Type};
use brook_texture_streams::{ElementFormat, MemberFormat};

use crate::error::BrookError;
use crate::program::Program;

impl Program {
    /// The element format of Brook type `name`: `float`..`float4`, or a struct of this program
    /// whose members are `float`..`float4` (one texture per member on GL).
    pub fn element_format(&self, name: &str) -> Result<ElementFormat, BrookError> {
        if let Some(n) = float_width(name) {
            return Ok(ElementFormat::scalar(n)?);
        }
        if name.starts_with("int") || name.starts_with("bool") {
            return Err(BrookError::Usage(format!(
                "streams of `{name}` are not supported: stream elements are float..float4 or structs of them"
            )));
        }
        let def = self
            .module()
            .structs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| {
                BrookError::Usage(format!(
                    "`{name}` is not a stream element type of this program"
                ))
            })?;
        let members = def
            .members
            .iter()
            .map(|m| match m.ty {
                Type::Scalar(Scalar::Float) => Ok(1),
                Type::Vector(Scalar::Float, n) => Ok(n),
                _ => Err(BrookError::Usage(format!(
                    "struct `{name}`: member `{}` is not float..float4, so it cannot be a stream element",
                    m.name
                ))),
            }
            .map(|components| MemberFormat { name: m.name.clone(), components }))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ElementFormat::structure(members)?)
    }
}

fn float_width(name: &str) -> Option<u8> {
    match name {
        "float" | "float1" => Some(1),
        "float2" => Some(2),
        "float3" => Some(3),
        "float4" => Some(4),
        _ => None,
    }
}
