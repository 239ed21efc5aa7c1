//! What one stream element is made of: `float`..`float4`, or a struct of them.
//!
//! On the host an element is laid out like the C struct Brook programs declare:
//! members in order, tightly packed (a struct of floats has no padding), so a
//! host array of `N` elements is `N × floats_per_element` floats
//! (array-of-structs). On GL each member gets a texture of its own, which is why the
//! format is kept as a list of members.

use brook_ir::{Module, Scalar, Type};

use crate::error::{BrookError, StreamError};

/// One member of an element: a name (empty for a plain `floatN` element) and
/// its number of float components, 1 to 4.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemberFormat {
    /// The struct field name; empty for the single member of a plain `floatN`.
    pub name: String,
    /// `1..=4` for `float`..`float4`.
    pub components: u8,
}

/// The format of a stream element: one or more float vector members.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementFormat {
    members: Vec<MemberFormat>,
}

impl ElementFormat {
    /// A plain `float` (1) .. `float4` (4) element: one unnamed member.
    pub fn scalar(components: u8) -> Result<Self, StreamError> {
        check_components("a stream element", components)?;
        Ok(ElementFormat {
            members: vec![MemberFormat {
                name: String::new(),
                components,
            }],
        })
    }

    /// A struct element with these fields, in declaration order. Each field is
    /// `float`..`float4`; names must be distinct and non-empty.
    pub fn structure(members: Vec<MemberFormat>) -> Result<Self, StreamError> {
        if members.is_empty() {
            return Err(StreamError::Format(
                "a struct element needs at least one field".into(),
            ));
        }
        for (k, member) in members.iter().enumerate() {
            if member.name.is_empty() {
                return Err(StreamError::Format(format!("struct field {k} has no name")));
            }
            if members[..k].iter().any(|m| m.name == member.name) {
                return Err(StreamError::Format(format!(
                    "struct field `{}` is declared twice",
                    member.name
                )));
            }
            check_components(
                &format!("struct field `{}`", member.name),
                member.components,
            )?;
        }
        Ok(ElementFormat { members })
    }

    /// The members in declaration order (one for a plain `floatN`).
    pub fn members(&self) -> &[MemberFormat] {
        &self.members
    }

    /// Floats per element in a host array: the sum of the members' components.
    pub fn floats_per_element(&self) -> usize {
        self.member_offset(self.members.len())
    }

    /// Where member `m` starts inside one host element, in floats. Passing the
    /// member count gives [`floats_per_element`](Self::floats_per_element).
    pub fn member_offset(&self, m: usize) -> usize {
        self.members
            .iter()
            .take(m)
            .map(|member| usize::from(member.components))
            .sum()
    }

    /// The components of each member, in order: what decides whether two formats hold the
    /// same elements (member names do not matter to storage).
    pub fn widths(&self) -> Vec<u8> {
        self.members.iter().map(|m| m.components).collect()
    }

    /// Whether elements of this format are elements of Brook type `ty` (member by member, the
    /// same widths); `None` when `ty` is no stream element type. Allocates nothing: the call
    /// checks ask on every call.
    pub fn holds(&self, module: &Module, ty: &Type) -> Option<bool> {
        let same = |k: usize, t: &Type| {
            float_width(t).map(|w| self.members.get(k).is_some_and(|m| m.components == w))
        };
        match ty {
            Type::Struct(id) => {
                let members = &module.struct_def(*id).members;
                let mut all = members.len() == self.members.len();
                for (k, m) in members.iter().enumerate() {
                    all &= same(k, &m.ty)?;
                }
                Some(all)
            }
            t => Some(same(0, t)? && self.members.len() == 1),
        }
    }

    /// The format of stream elements of Brook type `ty`: `float`..`float4`, or a struct of
    /// the module whose members are `float`..`float4`; `None` for any other type.
    pub fn of_type(module: &Module, ty: &Type) -> Option<ElementFormat> {
        match ty {
            Type::Struct(id) => {
                let members = module
                    .struct_def(*id)
                    .members
                    .iter()
                    .map(|m| {
                        float_width(&m.ty).map(|components| MemberFormat {
                            name: m.name.clone(),
                            components,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                ElementFormat::structure(members).ok()
            }
            t => ElementFormat::scalar(float_width(t)?).ok(),
        }
    }

    /// The element format of Brook type `name` as host code spells it: `float`..`float4`
    /// (`float1` too), or a struct of `module` whose members are `float`..`float4`.
    pub fn named(module: &Module, name: &str) -> Result<ElementFormat, BrookError> {
        let width = match name {
            "float" | "float1" => Some(1),
            "float2" => Some(2),
            "float3" => Some(3),
            "float4" => Some(4),
            _ => None,
        };
        if let Some(n) = width {
            return Ok(ElementFormat::scalar(n)?);
        }
        if name.starts_with("int") || name.starts_with("bool") {
            return Err(StreamError::Format(format!(
                "streams of `{name}` are not supported: stream elements are float..float4 or structs of them"
            ))
            .into());
        }
        let def = module
            .structs
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| {
                StreamError::Format(format!(
                    "`{name}` is not a stream element type of this program"
                ))
            })?;
        let ty = Type::Struct(brook_ir::StructId(def as u32));
        ElementFormat::of_type(module, &ty).ok_or_else(|| {
            let bad = module.structs[def]
                .members
                .iter()
                .find(|m| float_width(&m.ty).is_none())
                .map_or(String::new(), |m| m.name.clone());
            StreamError::Format(format!(
                "struct `{name}`: member `{bad}` is not float..float4, so it cannot be a stream element"
            ))
            .into()
        })
    }
}

/// The components of a `float`..`float4` type.
fn float_width(ty: &Type) -> Option<u8> {
    match ty {
        Type::Scalar(Scalar::Float) => Some(1),
        Type::Vector(Scalar::Float, n) => Some(*n),
        _ => None,
    }
}

/// Brook elements are built from `float`..`float4`, nothing wider.
fn check_components(what: &str, components: u8) -> Result<(), StreamError> {
    if (1..=4).contains(&components) {
        Ok(())
    } else {
        Err(StreamError::Format(format!(
            "{what} has {components} components; float..float4 have 1 to 4"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, components: u8) -> MemberFormat {
        MemberFormat {
            name: name.into(),
            components,
        }
    }

    #[test]
    fn struct_is_tightly_packed() {
        let format =
            ElementFormat::structure(vec![member("a", 1), member("b", 3), member("c", 2)]).unwrap();
        assert_eq!(format.floats_per_element(), 6);
        assert_eq!(
            (0..=3).map(|m| format.member_offset(m)).collect::<Vec<_>>(),
            vec![0, 1, 4, 6]
        );
    }

    #[test]
    fn scalar_has_one_unnamed_member() {
        let format = ElementFormat::scalar(3).unwrap();
        assert_eq!(format.members(), &[member("", 3)]);
        assert_eq!(format.floats_per_element(), 3);
    }

    #[test]
    fn bad_formats_are_errors() {
        assert!(matches!(
            ElementFormat::scalar(0),
            Err(StreamError::Format(_))
        ));
        assert!(matches!(
            ElementFormat::scalar(5),
            Err(StreamError::Format(_))
        ));
        assert!(ElementFormat::structure(vec![]).is_err());
        assert!(ElementFormat::structure(vec![member("", 1)]).is_err());
        assert!(ElementFormat::structure(vec![member("a", 1), member("a", 2)]).is_err());
        assert!(ElementFormat::structure(vec![member("a", 5)]).is_err());
    }
}
