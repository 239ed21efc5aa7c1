//! The results panel of a card: each stream the operation wrote, one picture per backend
//! side by side, and beside every backend after the first a difference picture and count
//! against the first ([`crate::compare`]).

use crate::assets::{image, Assets, Image};
use crate::compare::difference;
use crate::history::{js_trees, HistoryStep};
use crate::outcome::{Outcome, Sampled};

/// One output stream, across backends.
pub struct ResultRow {
    pub stream: String,
    pub cells: Vec<Cell>,
}

/// One backend's result.
pub struct Cell {
    pub backend: String,
    pub image: Option<Image>,
    pub problem: Option<String>,
    /// Against the first backend (none for the first itself).
    pub diff: Option<Diff>,
}

pub struct Diff {
    pub image: Option<Image>,
    /// Elements beyond the tolerance, of those compared.
    pub differ: usize,
    pub compared: usize,
    /// Why they could not be compared.
    pub problem: Option<String>,
}

/// The rows of one operation: `per_backend[b]` is backend `b`'s outcomes of it (`None`: that
/// backend ran fewer operations), named `names[b]`; the first is the reference, whose
/// pictures carry their elements' histories where it has them (their steps linking to the
/// card `card` gives for an operation). Also returns how many elements differ in all.
pub fn result_rows(
    names: &[&str],
    per_backend: &[Option<&[Outcome]>],
    card: &dyn Fn(usize) -> Option<usize>,
    assets: &mut Assets,
) -> (Vec<ResultRow>, usize) {
    let Some(Some(reference)) = per_backend.first() else {
        return (Vec::new(), 0);
    };
    let mut differing = 0;
    let rows = reference
        .iter()
        .enumerate()
        .map(|(k, first)| {
            let cells = names
                .iter()
                .zip(per_backend)
                .enumerate()
                .map(|(b, (name, outcomes))| {
                    let outcome = outcomes
                        .and_then(|o| o.get(k))
                        .filter(|o| o.name == first.name);
                    let mut cell = Cell {
                        backend: name.to_string(),
                        image: None,
                        problem: None,
                        diff: None,
                    };
                    let Some(outcome) = outcome else {
                        cell.problem = Some(format!("{name} has no result for this operation"));
                        return cell;
                    };
                    match outcome
                        .sampled
                        .as_ref()
                        .map_err(Clone::clone)
                        .and_then(Sampled::picture)
                    {
                        Ok(p) => {
                            let mut img = image(&p, assets);
                            // Histories of every element, one per texel of a picture in full.
                            let whole = p.step == 1
                                && outcome.histories.len() == (p.width * p.height) as usize;
                            if b == 0 && whole {
                                // The other backends' histories of the same elements, where
                                // they recorded them: each one's first difference is marked.
                                let others: Vec<(&str, &[HistoryStep])> = (names.iter())
                                    .zip(per_backend)
                                    .skip(1)
                                    .filter_map(|(name, o)| {
                                        let o = o.and_then(|o| o.get(k))?;
                                        let same = o.name == first.name
                                            && o.histories.len() == outcome.histories.len();
                                        same.then_some((*name, &o.histories[..]))
                                    })
                                    .collect();
                                img.why = Some(assets.histories.len());
                                assets
                                    .histories
                                    .push(js_trees(&outcome.histories, card, &others));
                            }
                            cell.image = Some(img);
                        }
                        Err(e) => cell.problem = Some(format!("could not be read: {e}")),
                    }
                    if b > 0 {
                        let diff = match (&first.sampled, &outcome.sampled) {
                            (Ok(a), Ok(o)) => difference(a, o),
                            _ => Err("one side could not be read".into()),
                        };
                        cell.diff = Some(match diff {
                            Ok(d) => {
                                differing += d.differ;
                                let mut img = image(&d.mask, assets);
                                img.caption = format!(
                                    "{} of {} elements{} differ from {} beyond the tolerance",
                                    d.differ,
                                    d.compared,
                                    if d.mask.step > 1 { " shown" } else { "" },
                                    names[0]
                                );
                                Diff {
                                    image: Some(img),
                                    differ: d.differ,
                                    compared: d.compared,
                                    problem: None,
                                }
                            }
                            Err(e) => Diff {
                                image: None,
                                differ: 0,
                                compared: 0,
                                problem: Some(e),
                            },
                        });
                    }
                    cell
                })
                .collect();
            ResultRow {
                stream: first.name.clone(),
                cells,
            }
        })
        .collect();
    (rows, differing)
}
