console.log("provision placeholder")
