// JSON objects have keys: tuple structs, unions and generics are refused.
#[derive(kubeskema::Deserialize)]
struct Pair(i64, i64);

#[derive(kubeskema::Serialize)]
struct Wrapper<T> {
    inner: T,
}

fn main() {}
