//! Every bench flow the crate carries: each family's variants, generated.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::family;
use crate::flow::{Flow, Split};
use crate::generate;
use crate::lang::{LangPack, Word};

/// The words a plan step is found by, as the packs give them.
const PLAN_WORDS: &[Word] = &[
    Word::Manage,
    Word::OpenCancel,
    Word::ContinueCancel,
    Word::NoThanks,
    Word::Continue,
    Word::Next,
    Word::ReasonLabel,
    Word::ReasonChoice,
    Word::Final,
    Word::DoneHeading,
];

/// The generated flows, in family order.
#[derive(Debug, Clone)]
pub struct Catalog {
    flows: Vec<Flow>,
}

impl Catalog {
    /// Generates every flow; fails on the first broken family or pack
    /// (a bug in the bench, named).
    pub fn load() -> Result<Catalog> {
        for pack in LangPack::all()? {
            let gaps = pack.gaps();
            if !gaps.is_empty() {
                return Err(Error::Data(format!(
                    "the {} language pack: {}",
                    pack.code,
                    gaps.join(", ")
                )));
            }
        }
        let mut flows = Vec::new();
        let mut ids = BTreeSet::new();
        for family in family::all()? {
            for variant in &family.flow {
                let flow = generate::flow(&family, variant)?;
                if !ids.insert(flow.id.clone()) {
                    return Err(Error::Data(format!("two flows are called {}", flow.id)));
                }
                flows.push(flow);
            }
        }
        Ok(Catalog { flows })
    }

    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    pub fn get(&self, id: &str) -> Result<&Flow> {
        self.flows
            .iter()
            .find(|f| f.id == id)
            .ok_or_else(|| Error::UnknownFlow(id.to_owned()))
    }

    pub fn split(&self, split: Split) -> impl Iterator<Item = &Flow> {
        self.flows.iter().filter(move |f| f.split == split)
    }

    /// The flows of services no bundled plugin knows.
    pub fn without_plugin(&self) -> impl Iterator<Item = &Flow> {
        self.flows.iter().filter(|f| !f.plugin)
    }

    /// The languages the flows are in.
    pub fn languages(&self) -> BTreeSet<String> {
        self.flows.iter().map(|f| f.language.clone()).collect()
    }
}

/// service → language → word key → the words.
pub type PlanWords = BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>;

/// For each service a bundled plugin knows, for each language, the words
/// its plan steps are found by (`open_cancel` → "Mitgliedschaft
/// kündigen"), so plans can learn the languages their sites ship in. The
/// invented brands have no plan to teach, and no plan learns a held-out
/// language or any pack's held-out variants.
pub fn plan_words() -> Result<PlanWords> {
    let packs: Vec<LangPack> = LangPack::all()?
        .into_iter()
        .filter(|p| !p.held_out_only)
        .collect();
    let mut out = BTreeMap::new();
    for family in family::all()?.into_iter().filter(|f| f.plugin) {
        let mut by_lang = BTreeMap::new();
        for pack in &packs {
            let mut words = BTreeMap::new();
            for &key in PLAN_WORDS {
                let vars = [
                    ("brand", family.brand.as_str()),
                    ("plan", family.plan.as_str()),
                ];
                words.insert(
                    key.as_str().to_owned(),
                    pack.word(&family.service, key, &vars)?,
                );
            }
            by_lang.insert(pack.code.clone(), words);
        }
        out.insert(family.service.clone(), by_lang);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod shape_tests;

#[cfg(test)]
mod generic_tests;
