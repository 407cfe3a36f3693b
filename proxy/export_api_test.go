package proxy

// FollowOnsOf is followOns, for the tests of the summary's folding.
var FollowOnsOf = followOns
