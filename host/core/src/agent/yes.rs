//! A person's yes, as the pipeline carries it from the question (`ask.rs`,
//! the only stage that makes one) to the guard (`run.rs`, which spends it
//! opening the guard for that one action, or releasing the requests it was
//! given to) and into the run's state (what ran approved).

/// A person's yes to one action, not yet used. Made only here, from an
/// approved answer. Not `Clone`: the run stage spends it
/// ([`Approval::spend`]) in the one guard call it opens, so no yes opens
/// the guard twice.
#[derive(Debug)]
pub(super) struct Approval {
    /// The turn it was given in.
    turn: u32,
    /// What it was given to, as the question named it.
    to: String,
    /// It was given to the final step (a strong sign, the plan's
    /// irreversible step, a commit pattern): for a flow that commits by
    /// navigation, that it ran is the evidence.
    final_step: bool,
}

/// A yes that was used: what ran under it, kept as the run's evidence and
/// for the dialog its action opened. It opens nothing.
#[derive(Debug, Clone)]
pub(super) struct Spent {
    turn: u32,
    to: String,
    final_step: bool,
}

impl Approval {
    /// Only the ask stage calls this, with the person's yes in hand.
    pub(super) fn new(turn: u32, to: &str, final_step: bool) -> Self {
        Approval {
            turn,
            to: to.to_owned(),
            final_step,
        }
    }

    /// Whether it was given to the final step.
    pub(super) fn final_step(&self) -> bool {
        self.final_step
    }

    /// Used: only the run stage calls this, as the guard opens for it.
    pub(super) fn spend(self) -> Spent {
        Spent {
            turn: self.turn,
            to: self.to,
            final_step: self.final_step,
        }
    }
}

impl Spent {
    /// Whether it was given to the final step.
    pub(super) fn final_step(&self) -> bool {
        self.final_step
    }

    /// A yes for the confirmation dialog the action it was given to
    /// opened: the site asking "are you sure?" about what the person has
    /// just said yes to. Only `pipeline::covered_dialog` calls this, after
    /// checking the dialog speaks of the cancellation and of nothing that
    /// changes what the person pays.
    pub(super) fn for_its_dialog(&self) -> Approval {
        Approval {
            turn: self.turn,
            to: format!("{} and the confirmation it opened", self.to.trim()),
            final_step: self.final_step,
        }
    }
}

impl std::fmt::Display for Approval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the yes of turn {} to {}", self.turn, self.to.trim())
    }
}

impl std::fmt::Display for Spent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the yes of turn {} to {}", self.turn, self.to.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A yes cannot be copied, so no copy of it can open the guard a second
    /// time: this fails to compile if `Approval` ever implements `Clone`
    /// (the call below becomes ambiguous between the two impls).
    #[test]
    fn a_yes_cannot_be_copied() {
        trait NotClone<Which> {
            fn check() {}
        }
        impl<T> NotClone<()> for T {}
        struct IfClone;
        impl<T: Clone> NotClone<IfClone> for T {}
        <Approval as NotClone<_>>::check();
        // Spent, by contrast, is a record and may be copied.
        let spent = Approval::new(3, "browser_click \"Finish\"", true).spend();
        assert!(spent.clone().final_step());
        assert_eq!(
            spent.to_string(),
            "the yes of turn 3 to browser_click \"Finish\""
        );
    }
}
