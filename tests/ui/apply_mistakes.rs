// An apply configuration is derived for concrete types, and a root's needs its metadata.

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::ApplyConfiguration)]
pub struct Generic<T> {
    pub value: T,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::ApplyConfiguration)]
#[kubeskema(resource(group = "example.com", version = "v1"))]
pub struct NoMeta {
    pub spec: Option<String>,
}

// A field whose type has no apply configuration: derive it on the type too.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize)]
pub struct Plain {
    pub x: Option<String>,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::ApplyConfiguration)]
pub struct Holder {
    pub plain: Option<Plain>,
}

// `apply_keys` names fields of the item type.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::ApplyConfiguration)]
#[kubeskema(apply_keys("name"))]
pub struct Item {
    pub id: String,
}

fn main() {}
