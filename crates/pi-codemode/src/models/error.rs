//! Why a `models.*` call of a script is refused; `Display` is the message
//! its promise rejects with.

use crate::text;

/// A catalogue call or a model call's model argument that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ModelError {
    /// A type that is not one of [`text::MODEL_TYPES`] (`got`: its JSON).
    #[error("{}", text::unknown_model_type(got))]
    UnknownType { got: String },
    /// A provider that is not a string.
    #[error("{}", text::PROVIDER_NOT_STRING)]
    ProviderNotString,
    /// `getModelOfType` without separate provider and id (`got`: each
    /// argument described).
    #[error("{}", text::get_model_needs_strings(&got.join(", ")))]
    NeedsStrings { got: Vec<String> },
    /// A model call whose first argument is not a model.
    #[error("{}", text::expects_model(call, &super::with_article(kind), got, *undefined, &text::list_hint(kind)))]
    NotAModel {
        /// `models.classify` or `models.generateImages`.
        call: String,
        /// The model type the call takes.
        kind: &'static str,
        /// The argument, described.
        got: String,
        /// Whether it was `undefined` or `null` (what an unknown model gives).
        undefined: bool,
    },
    /// A model of another type than the call takes.
    #[error(
        "{}",
        text::wrong_model_type(reference, &super::with_article(actual), &super::with_article(wanted), &text::list_hint(wanted))
    )]
    WrongType {
        /// `provider/id`.
        reference: String,
        /// The model's type.
        actual: &'static str,
        /// The type the call takes.
        wanted: &'static str,
    },
}

/// What is wrong with a model call's context: the text after `<call>() `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ContextProblem {
    /// The context is not an object (`got`: described, as below).
    #[error("{}", text::context_not_object(got))]
    NotObject { got: String },
    /// `state` is not an object.
    #[error("{}", text::state_not_object(got))]
    StateNotObject { got: String },
    /// `images` is not an array.
    #[error("{}", text::images_not_array(got))]
    ImagesNotArray { got: String },
    /// An entry of `images` is not an image block.
    #[error("{}", text::image_not_block(*index, got))]
    ImageNotBlock { index: usize, got: String },
    /// `questions` is not a non-empty map of questions.
    #[error("{}", text::questions_not_map(got))]
    QuestionsNotMap { got: String },
    /// A question is malformed.
    #[error(transparent)]
    Question(#[from] QuestionProblem),
    /// `input` is not a non-empty array.
    #[error("{}", text::input_not_blocks(got))]
    InputNotBlocks { got: String },
    /// An entry of `input` is neither a text nor an image block.
    #[error("{}", text::input_block(*index, got))]
    InputBlock { index: usize, got: String },
}

/// A malformed question of `classify()`; `at` is where it is
/// (`context.questions.<id>`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum QuestionProblem {
    /// Not an object (`got`: described).
    #[error("{}", text::question_not_object(at, got))]
    NotObject { at: String, got: String },
    /// No string `instructions`.
    #[error("{}", text::instructions_not_string(at))]
    Instructions { at: String },
    /// A `choice` question whose criteria are not a map of strings.
    #[error("{}", text::choice_criteria(at))]
    Choice { at: String },
    /// A `score` question whose criteria are not a list of strings.
    #[error("{}", text::score_criteria(at))]
    Score { at: String },
    /// A `bool` question without string `true` and `false` criteria.
    #[error("{}", text::bool_criteria(at))]
    Bool { at: String },
    /// An unknown type (`got`: its JSON).
    #[error("{}", text::question_type(at, got))]
    Type { at: String, got: String },
}
