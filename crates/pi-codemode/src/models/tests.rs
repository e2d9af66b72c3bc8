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
        m.get_models_of_type(&[json!("nope")]).unwrap_err().to_string(),
        "Unknown model type \"nope\". Use \"chat\", \"image\", or \"classifier\"."
    );
    assert_eq!(
        m.get_models_of_type(&[]).unwrap_err().to_string(),
        "Unknown model type undefined. Use \"chat\", \"image\", or \"classifier\"."
    );
    assert_eq!(m.get_models_of_type(&[json!("chat"), json!(1)]).unwrap_err().to_string(), "provider must be a string");
    assert_eq!(
        m.get_model_of_type(&[json!("chat"), json!("mock/mock-1")]).unwrap_err().to_string(),
        "models.getModelOfType(type, provider, id) expects three strings, got (a string, a string). The provider and the id are separate arguments, for example models.getModelOfType(\"classifier\", \"typesafe\", \"jev-latest\")."
    );
}

#[test]
fn model_checks_read_as_the_reference() {
    let m = models();
    assert_eq!(
        m.check_model("models.classify", "classifier", Some(&json!({"provider": "mock", "id": "mock-1"})))
            .unwrap_err()
            .to_string(),
        "\"mock/mock-1\" is a chat model, not a classifier model. List the classifier models you can use with models.getAvailableOfType(\"classifier\")."
    );
    assert_eq!(
        m.check_model("models.classify", "classifier", Some(&Value::Null)).unwrap_err().to_string(),
        "models.classify() expects a classifier model as its first argument, got null. models.getModelOfType() returns undefined for an unknown provider or id. List the classifier models you can use with models.getAvailableOfType(\"classifier\")."
    );
    assert_eq!(
        m.check_model("models.generateImages", "image", Some(&json!("x"))).unwrap_err().to_string(),
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
        classifier_context_problem(None).unwrap().to_string(),
        "expects a context object as its second argument, got undefined"
    );
    assert_eq!(
        classifier_context_problem(Some(&json!({"state": 1}))).unwrap().to_string(),
        "context.state must be an object, got a number"
    );
    assert_eq!(
        classifier_context_problem(Some(&json!({"state": {}, "questions": {}}))).unwrap().to_string(),
        "context.questions must map question IDs to questions, got {}"
    );
    assert_eq!(
        q(json!({"type": "x", "instructions": "i"})).unwrap().to_string(),
        "context.questions.x.type must be \"choice\", \"score\", or \"bool\", got \"x\""
    );
    assert_eq!(q(json!({"type": "bool"})).unwrap().to_string(), "context.questions.x.instructions must be a string");
    assert_eq!(q(json!({"type": "bool", "instructions": "i", "criteria": {"true": "y", "false": "n"}})), None);
    assert_eq!(
        images_context_problem(Some(&json!({"input": [{"type": "text"}]}))).unwrap().to_string(),
        "context.input[0] must be a text or image block, got { type }"
    );
    assert_eq!(
        images_context_problem(Some(&json!({"prompt": "x"}))).unwrap().to_string(),
        "context.input must be a non-empty array of blocks, got undefined"
    );
}
