//! What one stream element is made of: `float`..`float4`, or a struct of them.
//!
//! On the host an element is laid out like the C struct Brook programs declare:
//! members in order, tightly packed (a struct of floats has no padding), so a
//! host array of `N` elements is `N × floats_per_element` floats
//! (array-of-structs). On the device each member gets a texture of its own (see
//! [`crate::Stream`]), which is why the format is kept as a list of members.

use crate::error::StreamError;

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
