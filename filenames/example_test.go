package filenames_test

import (
	"fmt"
	"time"

	"github.com/printworker/printworker/filenames"
)

func ExampleBuild() {
	f := filenames.Fields{ID: "123.4f2a", Title: "Summer: Shirt/2024", Product: "TSHIRT",
		Date: time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)}
	fmt.Println(filenames.Build(filenames.Options{}, f, filenames.Ext("png")))
	fmt.Println(filenames.Build(filenames.Options{Pattern: "[date]_[product]_[id]"}, f, filenames.Ext("pdf-simple")))
	// Output:
	// 123.4f2a-Summer-Shirt2024.png
	// 2024-01-02_TSHIRT_123.4f2a.pdf
}

func ExampleForViews() {
	f := filenames.Fields{ID: "7", Title: "Mug"}
	views := []filenames.View{{ID: "v1", Name: "Front", Type: "png"}, {ID: "v2", Name: "Back", Type: "png"}}
	for _, n := range filenames.ForViews(filenames.Options{}, f, views, func(v filenames.View) string { return filenames.Ext(v.Type) }) {
		fmt.Println(n)
	}
	// Output:
	// 7-Mug-Front.png
	// 7-Mug-Back.png
}
