package hub

import (
	"net/http"
)

// locationCheck refuses a redirect whose Location does not parse as a URL, below the
// http.Client: the client itself fails such an answer with an error of no type
// ("failed to parse Location header"), which reads as a transport failure and was
// retried for the whole retry window, though the hub will send the same Location
// again. Here it is a redirectError, permanent like a redirect to file:.
type locationCheck struct{ next http.RoundTripper }

func (t locationCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || !isRedirect(resp.StatusCode) {
		return resp, err
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return resp, nil // no redirect: the client returns the 3xx answer itself
	}
	if _, perr := req.URL.Parse(loc); perr != nil {
		drain(resp.Body)
		resp.Body.Close()
		return nil, &redirectError{reason: "redirect to a Location that is not a URL refused"}
	}
	return resp, nil
}

// isRedirect: the statuses net/http's client follows (client.go redirectBehavior).
func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}
