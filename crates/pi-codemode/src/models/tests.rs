use super::*;

fn models() -> Models {
    Models {
        chat: vec![
            json!({"id": "mock-1", "name": "mock-1", "provider": "mock"}),
            json!({"id": "b", "provider": "other"}),
        ],
        available: vec!["mock/mock-1".into()],
        chat_source: None,
    }
}

#[test]
fn catalogue_calls() {
    let m = models();
    assert_eq!(m.get_models_of_type(&[json!("chat")]).unwrap().as_array().unwrap().len(), 2);
    assert_eq!(m.get_models_of_type(&[json!("chat"), json!("mock")]).unwrap()[0]["id"], "mock-1");
    assert_eq!(m.get_models_of_type(&[json!("classifier")]).unwrap(), json!([]));
    assert_eq!(m.get_available_of_type(&[json!("chat")]).unwrap().as_array().unwrap().len(), 1);
    assert_eq!(m.get_model_of_type(&[json!("chat"), json!("mock"), json!("mock-1")]).unwrap().unwrap()["id"], "mock-1");
    assert_eq!(
        m.get_models_of_type(&[json!("nope")]).unwrap_err(),
        "Unknown model type \"nope\". Use \"chat\", \"image\", or \"classifier\"."
    );
    assert_eq!(
        m.get_models_of_type(&[]).unwrap_err(),
        "Unknown model type undefined. Use \"chat\", \"image\", or \"classifier\"."
    );
    assert_eq!(m.get_models_of_type(&[json!("chat"), json!(1)]).unwrap_err(), "provider must be a string");
    assert_eq!(
        m.get_model_of_type(&[json!("chat"), json!("mock/mock-1")]).unwrap_err(),
        "models.getModelOfType(type, provider, id) expects three strings, got (a string, a string). The provider and the id are separate arguments, for example models.getModelOfType(\"classifier\", \"typesafe\", \"jev-latest\")."
    );
}

#[test]
fn model_checks_read_as_the_reference() {
    let m = models();
    assert_eq!(
        m.check_model("models.classify", "classifier", Some(&json!({"provider": "mock", "id": "mock-1"}))).unwrap_err(),
        "\"mock/mock-1\" is a chat model, not a classifier model. List the classifier models you can use with models.getAvailableOfType(\"classifier\")."
    );
    assert_eq!(
        m.check_model("models.classify", "classifier", Some(&Value::Null)).unwrap_err(),
        "models.classify() expects a classifier model as its first argument, got null. models.getModelOfType() returns undefined for an unknown provider or id. List the classifier models you can use with models.getAvailableOfType(\"classifier\")."
    );
    assert_eq!(
        m.check_model("models.generateImages", "image", Some(&json!("x"))).unwrap_err(),
        "models.generateImages() expects an image model as its first argument, got a string. List the image models you can use with models.getAvailableOfType(\"image\")."
    );
    assert_eq!(
        m.check_model("models.classify", "classifier", Some(&json!({"provider": "t", "id": "j"}))).unwrap(),
        ("t".into(), "j".into())
    );
}

#[test]
fn context_checks() {
    let q = |q: Value| classifier_context_problem(Some(&json!({"state": {}, "questions": {"x": q}})));
    assert_eq!(
        classifier_context_problem(None).unwrap(),
        "expects a context object as its second argument, got undefined"
    );
    assert_eq!(
        classifier_context_problem(Some(&json!({"state": 1}))).unwrap(),
        "context.state must be an object, got a number"
    );
    assert_eq!(
        classifier_context_problem(Some(&json!({"state": {}, "questions": {}}))).unwrap(),
        "context.questions must map question IDs to questions, got {}"
    );
    assert_eq!(
        q(json!({"type": "x", "instructions": "i"})).unwrap(),
        "context.questions.x.type must be \"choice\", \"score\", or \"bool\", got \"x\""
    );
    assert_eq!(q(json!({"type": "bool"})).unwrap(), "context.questions.x.instructions must be a string");
    assert_eq!(q(json!({"type": "bool", "instructions": "i", "criteria": {"true": "y", "false": "n"}})), None);
    assert_eq!(
        images_context_problem(Some(&json!({"input": [{"type": "text"}]}))).unwrap(),
        "context.input[0] must be a text or image block, got { type }"
    );
    assert_eq!(
        images_context_problem(Some(&json!({"prompt": "x"}))).unwrap(),
        "context.input must be a non-empty array of blocks, got undefined"
    );
}
