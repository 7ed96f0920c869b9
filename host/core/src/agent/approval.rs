//! A person's yes, as the pipeline carries it from the question (`ask.rs`,
//! the only stage that makes one) to the guard (`run.rs`, which opens it for
//! that one action, once) and into the run's state (what ran approved).

/// A person's yes to one action. Made only here, from an approved answer;
/// the run stage opens the guard for the action it was given to, once.
#[derive(Debug, Clone)]
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

impl Approval {
    /// Only the ask stage calls this, with the person's yes in hand.
    pub(super) fn new(turn: u32, to: &str, final_step: bool) -> Self {
        Approval {
            turn,
            to: to.to_owned(),
            final_step,
        }
    }

    /// The same yes, for the confirmation dialog the action it was given to
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

    /// Whether it was given to the final step.
    pub(super) fn final_step(&self) -> bool {
        self.final_step
    }
}

impl std::fmt::Display for Approval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the yes of turn {} to {}", self.turn, self.to.trim())
    }
}
