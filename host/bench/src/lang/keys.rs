//! The keys a pack's tables are read by, as types: a call site that
//! names a word no pack can have does not compile, and a pack (or a
//! family) that has a key no flow draws fails to load, naming it.

use serde::{Deserialize, Deserializer};

use crate::error::{Error, Result};

/// An enum of keys, each with the text a pack spells it in, in groups
/// (each an associated const slice). The text is given beside each
/// variant rather than derived, so `as_str`, `from_key` and the pack's
/// parsing read one list and cannot disagree.
macro_rules! keys {
    (
        $(#[$doc:meta])*
        pub enum $name:ident, called $what:literal {
            $(
                $(#[$group_doc:meta])*
                const $group:ident = [ $( $variant:ident = $key:literal, )* ];
            )*
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $( $variant, )* )*
        }

        impl $name {
            $(
                $(#[$group_doc])*
                pub const $group: &'static [$name] = &[ $( $name::$variant, )* ];
            )*

            /// The key as a pack spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $( $name::$variant => $key, )* )*
                }
            }

            /// The key a pack spells `key`, if there is one.
            pub fn from_key(key: &str) -> Option<$name> {
                match key {
                    $( $( $key => Some($name::$variant), )* )*
                    _ => None,
                }
            }
        }

        // By hand rather than derived: the derived error lists every
        // key there is, which buries the one that is wrong.
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let key = String::deserialize(d)?;
                $name::from_key(&key).ok_or_else(|| {
                    serde::de::Error::custom(format!("unknown {} {key:?}", $what))
                })
            }
        }
    };
}

keys! {
    /// A word of a pack's `[words]`, `[service.X]` and `[held-out.words]`
    /// (and of a family's own `[words.X]`).
    pub enum Word, called "word" {
        /// The words every pack must have: a flow may draw any of them.
        const BASE = [
            // controls
            Manage = "manage",
            OpenCancel = "open_cancel",
            ContinueCancel = "continue_cancel",
            NoThanks = "no_thanks",
            AcceptOffer = "accept_offer",
            SwitchPlan = "switch_plan",
            Pause = "pause",
            Continue = "continue",
            Next = "next",
            Final = "final",
            Keep = "keep",
            Back = "back",
            Restart = "restart",
            ShameDecline = "shame_decline",
            ShameAccept = "shame_accept",
            PauseOption = "pause_option",
            CancelOption = "cancel_option",
            DnKeep = "dn_keep",
            DnCommit = "dn_commit",
            EndCompletely = "end_completely",
            AddOn = "add_on",
            Skip = "skip",
            Verify = "verify",
            Chat = "chat",
            MenuSettings = "menu_settings",
            MenuBilling = "menu_billing",
            MenuPlan = "menu_plan",
            MenuMore = "menu_more",
            MenuHelp = "menu_help",
            MenuPrivacy = "menu_privacy",
            MenuDevices = "menu_devices",
            // texts
            AccountHeading = "account_heading",
            PlanLine = "plan_line",
            EmailLine = "email_line",
            ManageHeading = "manage_heading",
            OfferHeading = "offer_heading",
            OfferBody = "offer_body",
            SwitchHeading = "switch_heading",
            SwitchBody = "switch_body",
            PauseHeading = "pause_heading",
            PauseBody = "pause_body",
            BenefitsHeading = "benefits_heading",
            BenefitsBody = "benefits_body",
            SurveyHeading = "survey_heading",
            ReasonLabel = "reason_label",
            ReasonChoice = "reason_choice",
            ReturnLabel = "return_label",
            ConfirmHeading = "confirm_heading",
            ConfirmBody = "confirm_body",
            DoneHeading = "done_heading",
            DoneBody = "done_body",
            AcceptedHeading = "accepted_heading",
            AcceptedBody = "accepted_body",
            DowngradedHeading = "downgraded_heading",
            DowngradedBody = "downgraded_body",
            PausedHeading = "paused_heading",
            PausedBody = "paused_body",
            AddedHeading = "added_heading",
            AddedBody = "added_body",
            UnconfirmedHeading = "unconfirmed_heading",
            UnconfirmedBody = "unconfirmed_body",
            Countdown = "countdown",
            PlantedVisible = "planted_visible",
            PlantedHidden = "planted_hidden",
            FinePrint = "fine_print",
            PhoneHeading = "phone_heading",
            PhoneBody = "phone_body",
            ChatReply = "chat_reply",
            PasswordHeading = "password_heading",
            PasswordBody = "password_body",
            PasswordLabel = "password_label",
            CrosssellHeading = "crosssell_heading",
            CrosssellBody = "crosssell_body",
            Dialog = "dialog",
            TrickHeading = "trick_heading",
            DowngradeNote = "downgrade_note",
            SettingsHeading = "settings_heading",
            BillingHeading = "billing_heading",
            PlanHeading = "plan_heading",
            MoreHeading = "more_heading",
            FrameTitle = "frame_title",
            Footer = "footer",
        ];
        /// Words only some flows draw (the shapes issue 39 added): a pack
        /// has them where a flow in its language draws them, and a flow
        /// that needs one its pack lacks does not generate.
        const SHAPE = [
            // a survey whose button commits
            Submit = "submit",
            // a chat widget's close button
            Close = "close",
            // an add-on ended (an extra member slot)
            SlotLine = "slot_line",
            SlotCancel = "slot_cancel",
            SlotEndedHeading = "slot_ended_heading",
            SlotEndedBody = "slot_ended_body",
            // a failure page after the final step
            FailedHeading = "failed_heading",
            FailedBody = "failed_body",
            // links on the account page that read like a cancellation
            PolicyLink = "policy_link",
            StateLink = "state_link",
            StateBody = "state_body",
        ];
        /// Words only the statutory flows draw (the legal button's
        /// confirmation page, its done page, the offer that wears the
        /// law's words): the site's own texts around the law's words, not
        /// the law's words themselves, which are [`StatutoryWord`]s.
        const STATUTORY = [
            TerminationHeading = "termination_heading",
            TerminationBody = "termination_body",
            WithdrawalHeading = "withdrawal_heading",
            WithdrawalBody = "withdrawal_body",
            WithdrawnHeading = "withdrawn_heading",
            WithdrawnBody = "withdrawn_body",
            NameLabel = "name_label",
            EmailLabel = "email_label",
            ContractLabel = "contract_label",
            KindLabel = "kind_label",
            KindOrdinary = "kind_ordinary",
            KindExtraordinary = "kind_extraordinary",
            OnOfferBody = "on_offer_body",
        ];
    }
}

keys! {
    /// A key of a pack's `[statutory]` table: the law's own words for its
    /// buttons, each with its source beside it in the pack.
    pub enum StatutoryWord, called "statutory wording" {
        const ALL = [
            // §312k BGB (Germany)
            TerminateHere = "terminate_here",
            TerminateNow = "terminate_now",
            // Art. 11a of Directive 2011/83/EU (Directive (EU) 2023/2673)
            WithdrawHere = "withdraw_here",
            ConfirmWithdrawal = "confirm_withdrawal",
        ];
    }
}

keys! {
    /// A list of a pack's `[lists]`; every pack has each, with at least
    /// three entries.
    pub enum List, called "list" {
        const ALL = [
            // the last is the one chosen
            Reasons = "reasons",
            ReturnOptions = "return_options",
        ];
    }
}

/// A word key with this prefix names the pack's `[statutory]` wording
/// (`statutory.terminate_here`), not one of its own words.
pub(crate) const STATUTORY_PREFIX: &str = "statutory.";

/// What a skeleton's screen names by text (the word of the control that
/// goes on, of the way back, of a menu's heading): a pack word, or the
/// law's wording behind [`STATUTORY_PREFIX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Word(Word),
    Statutory(StatutoryWord),
}

impl Key {
    /// The key `key` spells; an error naming it where no pack can have it.
    pub fn parse(key: &str) -> Result<Key> {
        let parsed = match key.strip_prefix(STATUTORY_PREFIX) {
            Some(law) => StatutoryWord::from_key(law).map(Key::Statutory),
            None => Word::from_key(key).map(Key::Word),
        };
        parsed.ok_or_else(|| Error::Data(format!("there is no word {key:?}")))
    }
}
