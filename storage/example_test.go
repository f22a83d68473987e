package storage_test

import (
	"fmt"
	"time"

	"github.com/printworker/printworker/storage"
)

func ExampleLayout() {
	l := storage.Layout{} // storage.DefaultLayout
	v := storage.KeyVars{Store: "shop.example.com", Order: "1001", Filename: "123.4f2a-Mug-Front.png",
		Date: time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)}
	key, _ := l.Key(v)
	manifest, _ := l.ManifestKey(v)
	fmt.Println(key)
	fmt.Println(manifest)
	// Output:
	// shop.example.com/2024-01-02/1001/123.4f2a-Mug-Front.png
	// shop.example.com/2024-01-02/1001/manifest.json
}

func ExampleContentDisposition() {
	fmt.Println(storage.ContentDisposition("Café Crème.png"))
	// Output: attachment; filename="Caf_ Cr_me.png"; filename*=UTF-8''Caf%C3%A9%20Cr%C3%A8me.png
}
